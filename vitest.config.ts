import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirst from './test/support/sequencer.js';

export default defineConfig({
  // Node resolves `graphql` to its CommonJS build (no "exports" map); Vite would pick index.mjs for our
  // sources while Pothos and yoga get the CommonJS one: two realms, and `instanceof GraphQLError` fails.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/**/*.test.ts'],
    // The browser tests (test/e2e) drive the admin app in chromium: its screens, layout, focus and flows over
    // the GraphQL API, which answers the same on both databases (the int suite proves that API on each). They
    // are half of a run's time, so they run where an operator's `npm start` runs, on the embedded database,
    // and on PostgreSQL only when BROWSER_TESTS=all (issue 31: CI runs each test once instead of twice).
    exclude: [...configDefaults.exclude, ...(process.env.DATABASE_URL && process.env.BROWSER_TESTS !== 'all' ? ['test/e2e/**'] : [])],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    // expect.poll waits up to 10 s (vitest's default is 1 s): a browser list reloading on a machine running two
    // files at once took longer, and a poll's answer is its condition, not its speed (timings go to `npm run bench`).
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 120_000,
    // each file opens its own database (a fresh PostgreSQL database, or its own embedded one), cloned from
    // the migrated template the global setup makes once per run. The files a worker runs share its process
    // and its module cache (isolate: false): a file no longer loads the whole server again (about 3 s of
    // import each, issue 31). Files must therefore leave the process as they found it: what they set on
    // `process` or OpenTelemetry's globals is restored in afterAll, and their servers and databases closed.
    isolate: false,
    globalSetup: ['test/support/global-setup.ts'],
    // longest files first, from vitest's cache or, in a fresh clone, test/support/file-durations.json
    sequence: { sequencer: LongestFirst },
  },
});
