// The worker's shared chromium (test/support/browser.ts): a file's handle closes what the file opened and
// leaves the process for the next file, which starts with none of the contexts (pages, cookies, storage) before.
import { afterAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { endSharedBrowser, launchBrowser } from '../support/browser.js';

const handles: Browser[] = [];
afterAll(async () => {
  for (const h of handles) await h.close();
});

describe('the shared browser', () => {
  it("gives the next file the same chromium with none of the last file's contexts", async () => {
    const first = await launchBrowser();
    handles.push(first);
    const pid = await browserProcess(first);
    await first.newContext();
    await first.newPage(); // a page with a context of its own
    expect(first.contexts()).toHaveLength(2);

    await first.close(); // the file's afterAll
    expect(first.isConnected()).toBe(true);
    expect(first.contexts()).toEqual([]);

    const next = await launchBrowser();
    handles.push(next);
    expect(next.contexts()).toEqual([]);
    expect(await browserProcess(next)).toBe(pid);
  });

  it('closes what a file left open, should it die before its afterAll', async () => {
    const dying = await launchBrowser();
    await dying.newContext();
    await dying.newContext();
    // no close(): the next handle closes them
    const next = await launchBrowser();
    handles.push(next);
    expect(next.contexts()).toEqual([]);
  });

  it('launches chromium again when the shared one is gone', async () => {
    const handle = await launchBrowser();
    const gone = await browserProcess(handle);
    await endSharedBrowser(); // as a crash would
    expect(handle.isConnected()).toBe(false);
    const again = await launchBrowser();
    handles.push(again);
    expect(again.isConnected()).toBe(true);
    expect(await browserProcess(again)).not.toBe(gone);
  });
});

/** The id of chromium's browser process, as chromium reports it. */
async function browserProcess(browser: Browser): Promise<number> {
  const session = await browser.newBrowserCDPSession();
  try {
    const { processInfo } = await session.send('SystemInfo.getProcessInfo');
    return processInfo.find((p) => p.type === 'browser')!.id;
  } finally {
    await session.detach();
  }
}
