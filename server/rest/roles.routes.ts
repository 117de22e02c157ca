import { Router } from 'express';
import type { Deps } from '../application/context.js';

export function rolesRoutes(_deps: Deps): Router {
  const router = Router();
  return router;
}
