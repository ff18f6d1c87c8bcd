import type { ServerConfig } from '../config.ts';
import type { AppContext } from '../context.ts';
import type { Store } from '../db/store.ts';
import { createODataService, type ODataService } from '../odata/service.ts';
import { prepareBlacklist, registerBlacklist } from './blacklist-set.ts';
import { fillCallCenterTimeZones } from './call-centers-service.ts';
import { registerCatiSets } from './cati-sets.ts';

/**
 * The CATI data's start-up work, run once before the router serves: call centres without a zone get the
 * server's, stored blacklist numbers are brought to the configured phone region.
 */
export async function prepareCati(store: Store, config: ServerConfig): Promise<void> {
  await fillCallCenterTimeZones(store);
  await prepareBlacklist(store, config);
}

/**
 * The CATI OData service under /cati/: every entity set registers with the one dispatcher here
 * (see server/odata/service.ts for how to declare a set, its handlers and bound operations).
 */
export function catiService(ctx: AppContext): ODataService {
  const service = createODataService(ctx);
  registerBlacklist(service, ctx);
  registerCatiSets(service, ctx);
  return service;
}
