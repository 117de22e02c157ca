// SPEC §5: a path the service serves, asked with a method it does not serve, is 405 `method_not_allowed`
// with an `Allow` header (not 404). The methods come from the routers themselves, so a new route joins.
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { sendCode } from './problem.js';

type Layer = { slash?: boolean; route?: { path: unknown; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } };

/** Every route path of the routers (and of the routers they mount at their root), with the methods it serves. */
function routeMethods(routers: Router[]): Map<string, Set<string>> {
  const paths = new Map<string, Set<string>>();
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route && typeof layer.route.path === 'string') {
        const methods = paths.get(layer.route.path) ?? new Set<string>();
        for (const [m, on] of Object.entries(layer.route.methods)) if (on && m !== '_all') methods.add(m.toUpperCase());
        // Express answers HEAD with the GET route
        if (methods.has('GET')) methods.add('HEAD');
        paths.set(layer.route.path, methods);
      } else if (layer.handle?.stack && layer.slash !== false) {
        walk(layer.handle.stack);
      }
    }
  };
  for (const r of routers) walk((r as unknown as { stack: Layer[] }).stack);
  return paths;
}

/** Answers 405 with `Allow` for a method outside `allow`; other methods go on. */
export function onlyMethods(allow: readonly string[]): RequestHandler {
  const served = new Set(allow.includes('GET') ? [...allow, 'HEAD'] : allow);
  return (req: Request, res: Response, next: NextFunction) => {
    if (served.has(req.method)) return next();
    refuse(req, res, served);
  };
}

function refuse(req: Request, res: Response, allow: Set<string>) {
  const list = [...allow].sort().join(', ');
  res.setHeader('Allow', list);
  sendCode(res, 'method_not_allowed', `This path does not serve ${req.method}; it serves ${list}.`, req.requestId);
}

/**
 * A handler asked where a request is about to be refused or found by no route: when some route matches
 * its path but none serves its method, it answers 405; otherwise it calls `next`. Not mounted in front of
 * the routes, so a served request never pays for the matching.
 */
export function methodNotAllowed(routers: Router[]): RequestHandler {
  const probe = Router();
  const allowed = new WeakMap<Request, Set<string>>();
  for (const [path, methods] of routeMethods(routers)) {
    probe.all(path, (req: Request, _res: Response, next: NextFunction) => {
      const allow = allowed.get(req) ?? new Set<string>();
      for (const m of methods) allow.add(m);
      allowed.set(req, allow);
      next();
    });
  }
  probe.use((req: Request, res: Response, next: NextFunction) => {
    const allow = allowed.get(req);
    allowed.delete(req);
    if (!allow || allow.has(req.method)) return next();
    refuse(req, res, allow);
  });
  return (req, res, next) => probe(req, res, next);
}
