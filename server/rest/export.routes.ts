// REST: export of a list as CSV or NDJSON (issue 36), GET /export/<list>?format=csv|ndjson&<the list's filters>.
// Every page is read through the list's own use case and written as it comes, waiting for the client to
// take each page before the next is read; a refusal before the first byte is a problem document.
import { Router, type Request, type Response } from 'express';
import type { Deps } from '../application/context.js';
import { EXPORT_LISTS, EXPORT_MAX_ROWS, startExport, type ExportListName, type ExportRun } from '../application/export.js';
import { restCtx } from './handle.js';
import { sendProblem } from './problem.js';

/** Resolves once the client has taken what was written (or is gone). */
const drained = (res: Response) =>
  new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });

async function serveExport(deps: Deps, name: ExportListName, req: Request, res: Response): Promise<void> {
  const run = await startExport(deps, restCtx(req), name, req.query);
  if (!run.ok) return sendProblem(res, run, req.requestId);
  // The caller's rights ended (SPEC §10): the answer breaks off, so no one takes it as whole.
  const onRevoked = () => res.destroy();
  run.value.revoked.addEventListener('abort', onRevoked);
  try {
    await sendPages(deps, run.value, res);
  } finally {
    run.value.revoked.removeEventListener('abort', onRevoked);
    run.value.close();
  }
}

async function sendPages(deps: Deps, run: ExportRun, res: Response): Promise<void> {
  const { first } = run;
  const maxRows = deps.exportMaxRows ?? EXPORT_MAX_ROWS;
  res.status(200);
  res.setHeader('Content-Type', run.contentType);
  res.setHeader('Content-Disposition', `attachment; filename="${run.filename}"`);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Export-Max-Rows', String(maxRows));
  // Where to resume when the export stops at its budget (the cursor of the list's next page), as a trailer.
  res.setHeader('Trailer', 'X-Export-Next-Cursor');
  res.write(run.head);
  let page = first;
  let rows = 0;
  for (;;) {
    let chunk = '';
    for (const item of page.data) chunk += run.line(item);
    rows += page.data.length;
    if (!res.write(chunk)) await drained(res);
    if (res.destroyed) return;
    if (page.nextCursor === null) break;
    if (rows >= maxRows) {
      res.addTrailers({ 'X-Export-Next-Cursor': page.nextCursor });
      break;
    }
    const next = await run.next(page.nextCursor);
    // A page refused half-way (the caller's rights ended): the answer breaks off, so no one takes it as whole.
    if (!next.ok) {
      res.destroy();
      return;
    }
    if (res.destroyed) return;
    page = next.value;
  }
  res.end();
}

export function exportRoutes(deps: Deps): Router {
  const router = Router();
  for (const name of Object.keys(EXPORT_LISTS) as ExportListName[]) {
    router.get(`/export/${name}`, (req, res, next) => {
      serveExport(deps, name, req, res).catch((err: unknown) => (res.headersSent ? res.destroy() : next(err)));
    });
  }
  return router;
}
