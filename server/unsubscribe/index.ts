import { Router } from 'express';
import type { AppContext } from '../context.ts';

/** Public unsubscribe pages under /unsubscribe (no API key). */
export function unsubscribeRouter(_ctx: AppContext): Router {
  const router = Router();
  return router;
}
