import { Router } from 'express';
import type { Deps } from '../application/context.js';

export function tensionsRoutes(_deps: Deps): Router {
  const router = Router();
  return router;
}
