/**
 * The /cati/blacklist entity set declared through the OData dispatcher: generic list and get-by-key, POST,
 * PUT (and so PATCH), DELETE, Controller.Import (action), Controller.Check (function; cati_administrate
 * or cati_integrate) and Controller.Search (the screen's search, a collection; blacklist-search.ts). Numbers are normalised for the company's stored phone region (phone-region-setting.ts).
 * The worked example of how an entity set plugs into server/odata/service.ts.
 */
import type { CountryCode } from 'libphonenumber-js';
import type { AppContext } from '../context.ts';
import { badRequest } from '../errors.ts';
import type { ServerConfig } from '../config.ts';
import type { Store } from '../db/store.ts';
import { queryEntity, type Row } from '../odata/collection-query.ts';
import { ok, type EntitySetDef, type ODataService } from '../odata/service.ts';
import { blacklistModel, checkFunction, checkResultModel, importAction, importErrorModel, importItemType, importResultModel } from './blacklist-model.ts';
import { applyPhoneRegion } from './blacklist-region.ts';
import { searchFunction, searchScope } from './blacklist-search.ts';
import { checkNumber, createItem, deleteItem, importItems, importItemsOf, parseItemBody, updateItem } from './blacklist-service.ts';
import { checkPhoneRegion } from '../phone/phone-region.ts';
import { phoneRegion } from './phone-region-setting.ts';

/** The blacklist entity set: every seed endpoint plus Check. */
export function blacklistSet(ctx: AppContext): EntitySetDef {
  const { store } = ctx;
  const byId = async (id: number) => (await queryEntity(store, blacklistModel, id)) as Row;
  return {
    model: blacklistModel,
    // list and get: the generic collection query / entity read over blacklistModel.
    create: {
      handler: async (call) => ok.created(blacklistModel, await byId(await createItem(store, parseItemBody(call.body, true), await phoneRegion(store)))),
    },
    update: {
      handler: async (call) => {
        const id = call.key as number;
        const body = call.body as Record<string, unknown>;
        if (body.Id !== undefined && body.Id !== id) throw badRequest(`The body's Id ${JSON.stringify(body.Id)} does not match the key ${id}`);
        await updateItem(store, id, parseItemBody(body, false), call.req.get('if-match'), await phoneRegion(store));
        return ok.entity(blacklistModel, await byId(id));
      },
    },
    remove: {
      handler: async (call) => {
        await deleteItem(store, call.key as number, call.req.get('if-match'));
        return ok.noContent();
      },
    },
    operations: [
      {
        def: importAction,
        handler: async (call) => {
          const result = await importItems(store, importItemsOf(call.body), await phoneRegion(store));
          return ok.json({ '@odata.context': `${call.serviceRoot}/$metadata#Controller.BlacklistImportResult`, ...result });
        },
      },
      {
        def: searchFunction,
        handler: async (call) => call.query(blacklistModel, { scope: searchScope(call.args.text, await phoneRegion(store)) }),
      },
      {
        def: checkFunction,
        permissions: ['cati_administrate', 'cati_integrate'],
        handler: async (call) => {
          const result = await checkNumber(store, call.args.telephoneNumber, await phoneRegion(store));
          return ok.json({ '@odata.context': `${call.serviceRoot}/$metadata#Controller.BlacklistCheckResult`, ...result });
        },
      },
    ],
  };
}

/** The configured phone region (null: digits only); an unknown one throws. */
function configuredRegion(config: ServerConfig): CountryCode | null {
  const region = config.phoneRegion ? checkPhoneRegion(config.phoneRegion) : null;
  if (config.phoneRegion && !region) throw new Error(`Unknown phone region '${config.phoneRegion}'`);
  return region;
}

/**
 * At start (before the router serves): `--phone-region CC` stores CC as the company's region (re-normalising
 * the stored numbers when it changed); without the flag the stored region stands (docs/cati-api.md#phone-region).
 */
export async function prepareBlacklist(store: Store, config: ServerConfig): Promise<void> {
  const region = configuredRegion(config);
  if (region) await applyPhoneRegion(store, region);
}

/** Registers the blacklist set and the types its operations take and return (prepareBlacklist ran at start). */
export function registerBlacklist(service: ODataService, ctx: AppContext): void {
  for (const m of [checkResultModel, importErrorModel, importItemType, importResultModel]) service.registerType(m);
  service.registerSet(blacklistSet(ctx));
}
