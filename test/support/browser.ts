// Browser tests: a fresh admin-web build when the sources are newer (builds.ts), Debian's chromium (its headless
// shell), screenshots.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { ADMIN, startTestApp, type TestApp } from './app.js';
import { ensureWebBuild } from './builds.js';

const ROOT = new URL('../../', import.meta.url).pathname;
/**
 * Debian's chromium headless shell (package `chromium-headless-shell`: the same Chromium source and version as
 * the `chromium` package, built as the headless-only shell Playwright itself runs for headless tests), else
 * Debian's `chromium`. The shell has no browser UI to draw, fewer processes and no compositor for a window: the
 * 24 browser files cost 186 CPU-s against 281 with `chromium` on the same machine (issue 31).
 * `TEST_CHROMIUM=/usr/bin/chromium` runs them in the full browser.
 */
export const CHROMIUM =
  process.env.TEST_CHROMIUM ||
  (['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((path) => existsSync(path)) ?? '/usr/bin/chromium-headless-shell');
export const SCREENSHOTS = join(ROOT, 'test-results', 'screenshots');

export { ensureWebBuild };

let shared: Browser | undefined;

/**
 * The worker's chromium, shared by the browser files it runs one after another (issue 31: a launch and its
 * close cost about 3 s of CPU, 13 processes, for each of 23 files). Each file gets a handle whose `close()`
 * closes every context of that browser (the file's pages, cookies and storage) and leaves chromium running
 * for the next file, which starts with none; Playwright ends chromium when the worker process ends. A file
 * never sees another's context: they are closed before a handle is given out too, should a file have died
 * before its `afterAll`. A chromium that crashed or was closed is launched again.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Browser tests need Debian's chromium headless shell (or chromium) at ${CHROMIUM}: install it with \`apt-get install chromium-headless-shell\` (.ci/run does).`,
    );
  }
  if (!shared?.isConnected()) {
    shared = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }
  const browser = shared;
  const closeContexts = () => Promise.all(browser.contexts().map((c) => c.close())).then(() => undefined);
  await closeContexts();
  return new Proxy(browser, {
    get(target, property) {
      if (property === 'close') return closeContexts;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Ends the worker's chromium itself (what a crash would do): the next `launchBrowser` starts another. */
export async function endSharedBrowser(): Promise<void> {
  await shared?.close();
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Chooses in a type-to-search picker (combobox): types the text, then clicks the option whose name starts with it. */
export async function pick(scope: Page | Locator, label: string, text: string): Promise<void> {
  const box = scope.getByRole('combobox', { name: label, exact: true });
  await box.fill(text);
  const list = box.page().locator(`[id="${await box.getAttribute('aria-controls')}"]`);
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  await list
    .getByRole('option', { name: new RegExp(`^${escaped}`) })
    .first()
    .click();
}

/**
 * A page in a new browser context (added to `contexts`, for the file's afterAll to close), signed in as the
 * test admin through the sign-in form and on the first page (the tensions list). Desktop size unless told.
 */
export async function signInAdmin(
  browser: Browser,
  url: string,
  contexts: BrowserContext[],
  { timeoutMs = 15_000, ...options }: BrowserContextOptions & { timeoutMs?: number } = {},
): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(timeoutMs);
  await page.goto(`${url}/`);
  await page.locator('input[type=email]').fill(ADMIN.email);
  await page.locator('input[type=password]').fill(ADMIN.password);
  await page.locator('button[type=submit]').click();
  await page.getByRole('heading', { level: 1, name: /Tensions|Spannungen/ }).waitFor();
  return page;
}

/** What a browser test file opens once (browserSuite). */
export interface BrowserSuite {
  /** the test app (from the suite's `beforeAll` on) */
  readonly app: TestApp;
  /** the worker's browser (launchBrowser), likewise */
  readonly browser: Browser;
  /** a page in a new context, signed in as the test admin (signInAdmin) */
  signIn(options?: Parameters<typeof signInAdmin>[3]): Promise<Page>;
}

/**
 * A browser file's opening and end, registered where it is called, so a `beforeAll` of the file's own
 * registered after it sees `app` and `browser`: the admin app's build made current, the worker's browser, a
 * test app started with `args` (startTestApp's); after the file, every context it opened (the handle's
 * `close`) and the app closed.
 */
export function browserSuite(...args: Parameters<typeof startTestApp>): BrowserSuite {
  let app: TestApp | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    ensureWebBuild();
    browser = await launchBrowser();
    app = await startTestApp(...args);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('browserSuite: used before its beforeAll ran');
    return value;
  };
  return {
    get app() {
      return started(app);
    },
    get browser() {
      return started(browser);
    },
    signIn: (options) => signInAdmin(started(browser), started(app).url, contexts, options),
  };
}
