// The interactive API reference at /api/v1/docs: Swagger UI from the installed swagger-ui-dist package,
// served from here (no CDN: it works offline and under the strict Content-Security-Policy, since every
// script is a file of this origin and none is inline). The no-script reading is /api/v1/docs/reference.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { sendCode } from './problem.js';

const DIST = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Only these files of the package: not its index.html or initializer, which point at the Petstore demo. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const BASE = '/api/v1';
const ASSET_PATH = `${BASE}/docs/assets`;

/**
 * Ours, served as a file (the CSP allows no inline script). `validatorUrl: null`: Swagger UI would otherwise
 * send the document to validator.swagger.io. Every request it makes carries `X-CSRF-Protection: 1`, so a
 * signed-in admin can try unsafe methods with their session (SPEC §6); a key goes in "Authorize".
 */
const INIT_JS = `// Starts Swagger UI on this service's OpenAPI document.
window.ui = window.SwaggerUIBundle({
  url: ${JSON.stringify(`${BASE}/openapi.json`)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  displayRequestDuration: true,
  defaultModelsExpandDepth: 0,
  requestInterceptor: function (request) {
    request.headers['X-CSRF-Protection'] = '1';
    return request;
  },
});
`;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Market service REST API</title>
<link rel="stylesheet" href="${ASSET_PATH}/swagger-ui.css">
<link rel="icon" type="image/png" href="${ASSET_PATH}/favicon-32x32.png">
</head><body>
<noscript><p>This page needs JavaScript to let you try calls. Without it, read the
<a href="${BASE}/docs/reference">API reference</a> or the <a href="${BASE}/openapi.json">OpenAPI document</a>.</p></noscript>
<div id="swagger-ui"></div>
<script src="${ASSET_PATH}/swagger-ui-bundle.js"></script>
<script src="${ASSET_PATH}/init.js"></script>
</body></html>
`;

/** GET /docs and its assets (mounted under /api/v1; the assets are files, not API operations). */
export function docsPageRoutes(): Router {
  const router = Router();
  router.get('/docs', (_req, res) => {
    res.type('text/html; charset=utf-8').send(PAGE);
  });
  router.use('/docs/assets', (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const file = req.path.slice(1);
    if (file === 'init.js') return void res.type('text/javascript; charset=utf-8').send(INIT_JS);
    const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    // public like the page: an unknown file is 404 for anyone, not 401
    if (!type) return sendCode(res, 'not_found', `No file ${file} in the API reference.`, req.requestId);
    // no version in the URL: cached for an hour, then revalidated
    res.sendFile(join(DIST, file), { headers: { 'Content-Type': type, 'Cache-Control': 'public, max-age=3600' } }, (err) => err && next(err));
  });
  return router;
}
