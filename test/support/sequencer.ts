// Longest files first, so that the run does not end with one slow file on one worker while the other is idle.
// Vitest's own order does this from its cache of last run's durations (node_modules/.vite/vitest), which a
// fresh clone (CI: `npm ci`) does not have: it then runs the largest files first, and a small file that
// waits on purpose (a NATS outage, a server process's grace period) can start last. Here a file without a
// cached duration takes its duration from file-durations.json (seconds in the embedded lane, which runs
// every file; refresh with the JSON reporter when files change a lot), and a file in neither runs first, as
// vitest does.
// With a seed (`--sequence.shuffle`, or `--sequence.shuffle.files --sequence.seed=N` to keep each file's
// tests in order) the files run in that seed's random order instead, as vitest's own RandomSequencer would
// (a custom sequencer replaces it): files share their worker's process, so no file may rely on what ran before.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const measured = JSON.parse(readFileSync(new URL('./file-durations.json', import.meta.url), 'utf8')) as Record<string, number>;

/** `items` in a random order drawn from `seed` (mulberry32), the same for the same seed. */
function shuffled<T>(items: T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    if (config.sequence.seed !== undefined) return shuffled(files, config.sequence.seed);
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
