// Serves the admin web build: hashed assets compressed and cached for a year, index.html revalidated on every visit.
import { join } from 'node:path';
import compression from 'compression';
import express, { Router, type Response } from 'express';

/** Vite names every file under assets/ after its content hash, so a changed file always gets a new URL. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html names the current hashes: the browser must ask again each time (a 304 is cheap). */
const REVALIDATE = 'no-cache';

export function adminWeb(dir: string): Router {
  const router = Router();
  // only here: compressing the API's answers (and the event stream) is not this module's business
  router.use(compression());
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
