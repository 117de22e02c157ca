// Serves the admin web build: hashed assets cached for a year and sent as the build precompressed them
// (brotli or gzip, by Accept-Encoding), index.html revalidated on every visit.
import { existsSync } from 'node:fs';
import { extname, join } from 'node:path';
import express, { Router, type NextFunction, type Request, type Response } from 'express';

/** Vite names every file under assets/ after its content hash, so a changed file always gets a new URL. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html names the current hashes: the browser must ask again each time (a 304 is cheap). */
const REVALIDATE = 'no-cache';
/** What admin-web/vite.config.ts writes next to an asset, in the order the server prefers them. */
const PRECOMPRESSED = [
  { encoding: 'br', suffix: '.br' },
  { encoding: 'gzip', suffix: '.gz' },
] as const;
/** An asset's name as Vite writes it (no directories, so no way out of assets/). */
const ASSET_NAME = /^\/\w[\w.-]*$/;

/** A hashed asset in an encoding the client accepts, when the build wrote that variant; otherwise the original follows. */
function precompressedAsset(assets: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !ASSET_NAME.test(req.path)) return next();
    res.vary('Accept-Encoding');
    const file = join(assets, req.path);
    const variant = PRECOMPRESSED.find((v) => req.acceptsEncodings(v.encoding) === v.encoding && existsSync(file + v.suffix));
    if (!variant || !existsSync(file)) return next();
    // the original's type (send keeps a Content-Type already set), not the type of .br/.gz
    res.type(extname(file));
    res.setHeader('Content-Encoding', variant.encoding);
    res.sendFile(file + variant.suffix, { cacheControl: false, headers: { 'Cache-Control': IMMUTABLE } }, (err) => {
      if (err && !res.headersSent) next(err);
    });
  };
}

export function adminWeb(dir: string): Router {
  const router = Router();
  router.use('/assets', precompressedAsset(join(dir, 'assets')));
  router.use(
    express.static(dir, {
      index: false,
      cacheControl: false,
      setHeaders(res: Response, path: string) {
        res.setHeader('Cache-Control', path.startsWith(join(dir, 'assets')) ? IMMUTABLE : REVALIDATE);
      },
    }),
  );
  // Client-side routes: browsers asking for a page get the app; API clients get a 404 problem.
  router.get(/^\/(?!api\/|graphql|mcp|metrics).*/, (req, res, next) => {
    if (req.accepts(['text/html', 'application/json']) !== 'text/html') return next();
    res.setHeader('Cache-Control', REVALIDATE);
    res.sendFile(join(dir, 'index.html'));
  });
  return router;
}
