// Security headers (helmet) for every answer. GraphiQL's offline page inlines its script and styles, so
// only /graphql may run inline code. `upgrade-insecure-requests` only for requests that arrived over
// HTTPS (req.secure honours TRUST_PROXY's X-Forwarded-Proto): on plain HTTP it would make the browser
// fetch every asset over HTTPS from a host that does not serve it, and the admin app stays blank.
import helmet from 'helmet';
import type { NextFunction, Request, Response } from 'express';

const STRICT = { 'img-src': ["'self'", 'data:'], 'connect-src': ["'self'"] };
const GRAPHIQL = {
  'script-src': ["'self'", "'unsafe-inline'", 'blob:'],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'worker-src': ["'self'", 'blob:'],
  'connect-src': ["'self'"],
};

const withUpgrade = (directives: Record<string, string[]>, secure: boolean) =>
  helmet({ contentSecurityPolicy: { directives: { ...directives, 'upgrade-insecure-requests': secure ? [] : null } } });

export function securityHeaders() {
  const variants = {
    strict: { secure: withUpgrade(STRICT, true), plain: withUpgrade(STRICT, false) },
    graphiql: { secure: withUpgrade(GRAPHIQL, true), plain: withUpgrade(GRAPHIQL, false) },
  };
  return (req: Request, res: Response, next: NextFunction) =>
    variants[req.path === '/graphql' ? 'graphiql' : 'strict'][req.secure ? 'secure' : 'plain'](req, res, next);
}
