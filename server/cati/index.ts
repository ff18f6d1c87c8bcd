import type { Router } from 'express';
import type { AppContext } from '../context.ts';
import { createODataService } from '../odata/service.ts';
import { registerBlacklist } from './blacklist-set.ts';
import { registerCatiSets } from './cati-sets.ts';

/**
 * The CATI OData service under /cati/: every entity set registers with the one dispatcher here
 * (see server/odata/service.ts for how to declare a set, its handlers and bound operations).
 */
export function catiRouter(ctx: AppContext): Router {
  const service = createODataService(ctx);
  registerBlacklist(service, ctx);
  registerCatiSets(service, ctx);
  return service.router;
}
