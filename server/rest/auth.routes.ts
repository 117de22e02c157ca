import { Router, type RequestHandler } from 'express';
import type { Deps } from '../application/context.js';

/** `requireCaller` guards the routes here that need a session (logout, me). */
export function authRoutes(_deps: Deps, _requireCaller: RequestHandler): Router {
  const router = Router();
  return router;
}
