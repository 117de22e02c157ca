// REST: the audit trail (SPEC §11), GET /audit, newest first. Parse → call → map.
import { Router } from 'express';
import type { Deps } from '../application/context.js';
import { listAudit } from '../application/audit/audit.js';
import { handle } from './handle.js';

export function auditRoutes(deps: Deps): Router {
  const router = Router();
  router.get(
    '/audit',
    handle(deps, (d, ctx, req) => listAudit(d, ctx, req.query)),
  );
  return router;
}
