import { Router } from 'express';
import type { AppContext } from '../context.ts';

/** The opt-out API under /optout/: lists, domains, e-mails, import, export, settings. */
export function optoutRouter(_ctx: AppContext): Router {
  const router = Router();
  return router;
}
