// The table on stdout and the JSON in bench/results/: each figure, its ratio, target and verdict.
export interface Figure {
  name: string;
  /** the median value, already formatted with its unit */
  value: string;
  /** what it is compared with (median), formatted */
  against?: string;
  ratio?: number;
  target?: string;
  pass?: boolean;
}

export const median = (xs: number[]): number => {
  const s = [...xs].filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export const fmt = (n: number, unit = '', digits = 0) => `${Number.isFinite(n) ? n.toFixed(digits) : '—'}${unit}`;

/** ratio = median of the per-round ratios (each round pairs the two systems under the same conditions) */
export function ratioFigure(name: string, a: number[], b: number[], unit: string, cmp: '>=' | '<=', threshold: number, digits = 0): Figure {
  const ratio = median(a.map((x, i) => x / b[i]));
  return {
    name,
    value: fmt(median(a), unit, digits),
    against: fmt(median(b), unit, digits),
    ratio,
    target: `${cmp} ${threshold}`,
    pass: cmp === '>=' ? ratio >= threshold : ratio <= threshold,
  };
}

export function renderTable(figures: Figure[]): string {
  const rows = [
    ['figure', 'median', 'against (median)', 'ratio', 'target', 'verdict'],
    ...figures.map((f) => [
      f.name,
      f.value,
      f.against ?? '',
      f.ratio === undefined ? '' : f.ratio.toFixed(3),
      f.target ?? '',
      f.pass === undefined ? 'info' : f.pass ? 'PASS' : 'FAIL',
    ]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(rows[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}
