import { Router } from 'express';
import type { Deps } from '../application/context.js';

export function openapiRoutes(_deps: Deps): Router {
  const router = Router();
  return router;
}
