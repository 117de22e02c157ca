// SPEC §6: the service answers only to its own host names, so a page whose DNS name was rebound to this
// address (and whose Origin then matches its Host) reaches nothing: not /mcp, login, /metrics nor GraphQL.
import type { NextFunction, Request, Response } from 'express';
import type { Deps } from '../application/context.js';
import { sendCode } from '../rest/problem.js';

/**
 * Probes are exempt: kubelets and load balancers call /healthz and /readyz by the pod's address, and they
 * tell nothing. So is /metrics behind METRICS_TOKEN (scrapers also use pod addresses; a page cannot know the token).
 */
function exemptPaths(deps: Deps): Set<string> {
  return new Set(['/healthz', '/readyz', ...(deps.config.metricsToken ? ['/metrics'] : [])]);
}

export function allowedHosts(deps: Deps) {
  const hosts = new Set(deps.config.allowedHosts);
  const exempt = exemptPaths(deps);
  return (req: Request, res: Response, next: NextFunction) => {
    if (exempt.has(req.path)) return next();
    // The Host header, or a trusted proxy's X-Forwarded-Host (TRUST_PROXY), without its port.
    const name = req.hostname?.toLowerCase().replace(/\.$/, '');
    if (name && hosts.has(name)) return next();
    sendCode(
      res,
      'host_not_allowed',
      'This service answers only to the host names it is configured with (PUBLIC_URL, ALLOWED_HOSTS); the Host of this request is not one of them.',
      req.requestId,
    );
  };
}
