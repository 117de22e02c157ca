// A chart over uPlot (canvas, ~50 kB, loaded with the dashboard only) with its figures as a table behind it:
// the canvas is one labelled image for assistive technology, the table (in a disclosure) says every value,
// and the legend names each series in words beside its colour. Colours come from the theme's CSS variables,
// so dark mode follows `prefers-color-scheme` like the rest of the app.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  values: number[];
  /** a CSS variable of the theme (`--accent`) */
  color: string;
}

const cssVar = (name: string): string => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';

function useDarkMode(): boolean {
  const query = '(prefers-color-scheme: dark)';
  const [dark, setDark] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const m = window.matchMedia(query);
    const on = () => setDark(m.matches);
    m.addEventListener('change', on);
    return () => m.removeEventListener('change', on);
  }, []);
  return dark;
}

export function Chart({
  title,
  summary,
  labels,
  series,
  kind = 'lines',
  table,
  tableLabel,
}: {
  title: string;
  /** what the picture shows, in one sentence (the canvas's accessible name) */
  summary: string;
  /** one label per x position */
  labels: string[];
  series: ChartSeries[];
  kind?: 'lines' | 'bars';
  /** the figures as a table */
  table: ReactNode;
  tableLabel: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const dark = useDarkMode();
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const axis = { stroke: cssVar('--text-muted'), grid: { stroke: cssVar('--border'), width: 1 }, ticks: { stroke: cssVar('--border'), width: 1 } };
    const bars = kind === 'bars' ? uPlot.paths.bars!({ size: [0.6, 48] }) : undefined;
    const plot = new uPlot(
      {
        width: Math.max(200, el.clientWidth),
        height: 220,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
        axes: [
          { ...axis, values: (_u, splits) => splits.map((i) => (Number.isInteger(i) ? (labels[i] ?? '') : '')) },
          { ...axis, values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? String(v) : '')) },
        ],
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: cssVar(s.color),
            width: 2,
            ...(bars ? { fill: cssVar(s.color), paths: bars, points: { show: false } } : { points: { size: 6 } }),
          })),
        ],
      },
      [labels.map((_, i) => i), ...series.map((s) => s.values)],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(200, el.clientWidth), height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [labels, series, kind, dark]);

  return (
    <figure className="chart card">
      <figcaption className="chart-title">{title}</figcaption>
      {series.length > 1 && (
        <ul className="chart-legend">
          {series.map((s) => (
            <li key={s.label}>
              <span className="chart-swatch" style={{ background: `var(${s.color})` }} aria-hidden="true" />
              {s.label}
            </li>
          ))}
        </ul>
      )}
      <div ref={box} className="chart-canvas" role="img" aria-label={summary} />
      <details className="chart-table">
        <summary>{tableLabel}</summary>
        {table}
      </details>
    </figure>
  );
}
