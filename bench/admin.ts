// `npm run bench -- --only admin` (issue 36's operator figures): how soon an operator sees the first row of the
// tension list, cold, in Debian's Chromium, on a database of its own filled by SQL as the command path writes
// it (bench/lib/scale-data.ts). "Cold": a new browser context for every load (no HTTP cache, no service
// worker, nothing in memory), signed in by its session cookie only, opening /tensions directly. Also checked:
// the first load does not fetch the dashboard's chunk (the charting library is code-split).
// Sizes: `--admin-tensions 2000,1000000` (default 2000); the 1,000,000 set takes minutes to write.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { Api } from './lib/api.js';
import { createBenchDatabase } from './lib/pg.js';
import { writeScaleData, type ScaleSizes } from './lib/scale-data.js';
import { ROOT, startService } from './lib/service.js';
import { fmt, median, type Figure } from './report.js';

const CHROMIUM = '/usr/bin/chromium';
/** the figure: the first row of the tension list rendered within this, cold */
const FIRST_ROW_TARGET_MS = 800;
/** a chunk only the dashboard loads (it carries the charting library) */
const DASHBOARD_CHUNK = /\/assets\/dashboard-[^/]*\.js$/;

export interface AdminOptions {
  tensions: number[];
  loads: number;
}

export function adminOptions(option: (name: string) => string | undefined, quick: boolean): AdminOptions {
  const tensions = (option('--admin-tensions') ?? '2000').split(',').map((s) => Number(s.replace(/_/g, '')));
  if (tensions.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--admin-tensions: whole numbers ≥ 1, comma-separated');
  return { tensions, loads: Number(option('--admin-loads') ?? (quick ? 5 : 15)) };
}

/** the scale bench's proportions: a tenth as many actors and users as tensions; the audit trail is not what this loads */
const sizesFor = (n: number): ScaleSizes => ({ tensions: n, actors: Math.max(10, Math.ceil(n / 10)), users: Math.max(10, Math.ceil(n / 10)), audit: 1_000 });

export interface AdminRaw {
  tensions: number;
  setupMs: number;
  /** ms from navigation to the first row visible, per cold load */
  firstRowMs: number[];
  /** ms from navigation to the list's total shown ("1–20 of …") */
  totalMs: number[];
  /** ms from the navigation's start (the page's own clock) to the last script and to the first API answer received */
  scriptsMs: number[];
  apiMs: number[];
  /** script URLs the first load fetched */
  scripts: string[];
}

async function oneSize(serverUrl: string, outDir: string, browser: Browser, n: number, loads: number, log: (s: string) => void): Promise<AdminRaw> {
  const db = await createBenchDatabase(serverUrl, `bench_admin_${n}_${Date.now()}_${process.pid}`);
  const stops: (() => Promise<void>)[] = [async () => db.drop()];
  try {
    const env = { databaseUrl: db.url, dataDir: await mkdtemp(join(tmpdir(), 'bench-admin-')), logFile: join(outDir, `service-admin-${n}.log`) };
    const svc = await startService(env);
    stops.unshift(() => svc.stop());
    const started = performance.now();
    await writeScaleData((sql, params) => db.query(sql, params), sizesFor(n), log);
    const setupMs = performance.now() - started;
    log(`admin: ${n} tensions written in ${Math.round(setupMs / 1000)} s`);
    const admin = await Api.loginAdmin(svc.url);
    const cookies = admin.auth.cookie.split('; ').map((pair) => {
      const eq = pair.indexOf('=');
      return { name: pair.slice(0, eq), value: pair.slice(eq + 1), url: svc.url };
    });
    const raw: AdminRaw = { tensions: n, setupMs, firstRowMs: [], totalMs: [], scriptsMs: [], apiMs: [], scripts: [] };
    // one unmeasured load: the service's own first requests (plans, caches) are not the browser's cold start
    for (let i = 0; i <= loads; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
      try {
        await context.addCookies(cookies);
        const page = await context.newPage();
        page.setDefaultTimeout(60_000);
        const scripts: string[] = [];
        page.on('request', (r) => {
          if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
        });
        const t0 = performance.now();
        await page.goto(`${svc.url}/tensions`, { waitUntil: 'commit' });
        await page.locator('main table tbody tr').first().waitFor({ state: 'visible' });
        const firstRow = performance.now() - t0;
        await page
          .getByText(/^\d[\d,]*–[\d,]+ of [\d,]+\+?$/)
          .first()
          .waitFor({ state: 'visible' });
        const total = performance.now() - t0;
        if (i === 0) {
          raw.scripts = scripts;
          continue;
        }
        raw.firstRowMs.push(firstRow);
        raw.totalMs.push(total);
        // a string, not a function: tsx's helpers (__name) do not exist in the page
        const [scriptsEnd, apiEnd] = await page.evaluate<[number, number]>(`(() => {
          const entries = performance.getEntriesByType('resource');
          const scripts = entries.filter((e) => e.initiatorType === 'script').map((e) => e.responseEnd);
          const api = entries.filter((e) => e.name.includes('/graphql') || e.name.includes('/api/')).map((e) => e.responseEnd);
          return [Math.max(...scripts), Math.min(...api)];
        })()`);
        raw.scriptsMs.push(scriptsEnd);
        raw.apiMs.push(apiEnd);
      } finally {
        await context.close();
      }
    }
    log(`admin: ${n} tensions, first row p50 ${Math.round(median(raw.firstRowMs))} ms, max ${Math.round(Math.max(...raw.firstRowMs))} ms`);
    return raw;
  } finally {
    for (const stop of stops) await stop().catch(() => undefined);
  }
}

export async function adminBench(
  serverUrl: string,
  outDir: string,
  opts: AdminOptions,
  log: (s: string) => void,
): Promise<{ figures: Figure[]; raw: AdminRaw[] }> {
  if (!existsSync(CHROMIUM)) throw new Error(`the admin bench needs Debian's chromium at ${CHROMIUM} (apt-get install chromium)`);
  // the build the service serves, as npm start makes it
  execFileSync('npm', ['run', 'build:web'], { cwd: ROOT, stdio: 'ignore' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  const raw: AdminRaw[] = [];
  try {
    for (const n of opts.tensions) raw.push(await oneSize(serverUrl, outDir, browser, n, opts.loads, log));
  } finally {
    await browser.close();
  }
  const figures: Figure[] = [];
  for (const r of raw) {
    const p50 = median(r.firstRowMs);
    const worst = Math.max(...r.firstRowMs);
    figures.push(
      // judged on the median: one load held up by the machine (a GC, another process) is reported, not judged
      {
        name: `admin ${r.tensions.toLocaleString('en')} tensions: first row, cold (p50 / max of ${r.firstRowMs.length})`,
        value: `${fmt(p50, ' ms')} / ${fmt(worst, ' ms')}`,
        target: `p50 <= ${FIRST_ROW_TARGET_MS} ms`,
        pass: p50 <= FIRST_ROW_TARGET_MS,
      },
      {
        name: `admin ${r.tensions.toLocaleString('en')} tensions: last script / first API answer (p50, the page's clock)`,
        value: `${fmt(median(r.scriptsMs), ' ms')} / ${fmt(median(r.apiMs), ' ms')}`,
      },
      { name: `admin ${r.tensions.toLocaleString('en')} tensions: total shown (p50)`, value: fmt(median(r.totalMs), ' ms') },
      {
        name: `admin ${r.tensions.toLocaleString('en')} tensions: dashboard chunk in the first load`,
        value: r.scripts.some((s) => DASHBOARD_CHUNK.test(s)) ? 'yes' : 'no',
        target: '= no',
        pass: !r.scripts.some((s) => DASHBOARD_CHUNK.test(s)),
      },
      { name: `admin ${r.tensions.toLocaleString('en')} tensions: setup (SQL bulk write)`, value: fmt(r.setupMs / 1000, ' s') },
    );
  }
  return { figures, raw };
}
