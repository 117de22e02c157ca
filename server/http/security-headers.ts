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

type HeaderList = [string, string][];

/**
 * The headers helmet sets with these directives, read once by running it against a recorder: its
 * directives are all fixed, so every answer gets the same list, and a request costs a loop of setHeader
 * instead of helmet's dozen middlewares (issue 37).
 */
function recorded(directives: Record<string, string[]>, secure: boolean): HeaderList {
  const headers: HeaderList = [];
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => void headers.push([name, String(value)]),
    removeHeader: () => undefined,
    getHeader: () => undefined,
    locals: {},
  };
  let done = false;
  helmet({ contentSecurityPolicy: { directives: { ...directives, 'upgrade-insecure-requests': secure ? [] : null } } })(
    {} as never,
    recorder as never,
    (err?: unknown) => {
      if (err) throw err instanceof Error ? err : new Error('helmet refused its options');
      done = true;
    },
  );
  if (!done) throw new Error('helmet did not finish synchronously');
  return headers;
}

const LISTS = {
  strict: { secure: recorded(STRICT, true), plain: recorded(STRICT, false) },
  graphiql: { secure: recorded(GRAPHIQL, true), plain: recorded(GRAPHIQL, false) },
};

/** The security headers of an answer to `path`, over HTTPS (`secure`, TRUST_PROXY's X-Forwarded-Proto honoured) or not. */
export function securityHeaderList(path: string, secure: boolean): HeaderList {
  return LISTS[path === '/graphql' ? 'graphiql' : 'strict'][secure ? 'secure' : 'plain'];
}

export function securityHeaders() {
  return (req: Request, res: Response, next: NextFunction) => {
    for (const [name, value] of securityHeaderList(req.path, req.secure)) res.setHeader(name, value);
    next();
  };
}
