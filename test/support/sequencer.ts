// Longest files first, so that the run does not end with one slow file on one worker while the other is idle.
// Vitest's own order does this from its cache of last run's durations (node_modules/.vite/vitest), which a
// fresh clone (CI: `npm ci`) does not have: it then runs the largest files first, and a small file that
// waits on purpose (a NATS outage, a server process's grace period) can start last. Here a file without a
// cached duration takes its duration from file-durations.json (seconds on PostgreSQL, measured; refresh
// with the JSON reporter when files change a lot), and a file in neither runs first, as vitest does.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const measured = JSON.parse(readFileSync(new URL('./file-durations.json', import.meta.url), 'utf8')) as Record<string, number>;

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const seconds = (spec: TestSpecification): number => {
      const path = relative(config.root, spec.moduleId);
      const cached = cache.getFileTestResults(`${spec.project.name}:${path}`);
      if (cached?.failed) return Infinity; // what failed last time is seen first
      return cached?.duration !== undefined && cached.duration > 0 ? cached.duration / 1000 : (measured[path] ?? Infinity);
    };
    return files
      .map((spec) => ({ spec, seconds: seconds(spec) }))
      .sort((a, b) => b.seconds - a.seconds)
      .map(({ spec }) => spec);
  }
}
