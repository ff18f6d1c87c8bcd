import { Router } from 'express';
import type { AppContext } from '../context.ts';

/** The CATI OData service under /cati/: every entity-set router is mounted here. */
export function catiRouter(_ctx: AppContext): Router {
  const router = Router();
  return router;
}
