// axe over what a browser test shows: the serious and critical violations, each as `id (impact): targets`.
// axe runs in the page itself (`axe.run`, AxeBuilder's "legacy mode"). The default mode runs `axe.runPartial`
// in each frame and then `axe.finishRun` in a new blank page, injecting axe's 500 KB again there: a page and a
// renderer more for every check, about 1 s of CPU each on these machines, for frames the admin app does not
// have. So that no frame can go unchecked, a page with a frame fails here instead.
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';

export async function seriousViolations(page: Page, options: { include?: string } = {}): Promise<string[]> {
  const frames = page.frames().length;
  if (frames !== 1) throw new Error(`axe runs in the top document only, and this page has ${frames - 1} frame(s)`);
  const builder = new AxeBuilder({ page }).setLegacyMode(true);
  if (options.include) builder.include(options.include);
  const result = await builder.analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
