/**
 * The /cati/blacklist entity set declared through the OData dispatcher: generic list and get-by-key, POST,
 * PUT (and so PATCH), DELETE, Controller.Import (action) and Controller.Check (function; cati_administrate
 * or cati_integrate). Numbers are normalised for the configured phone region (phone-region.ts).
 * The worked example of how an entity set plugs into server/odata/service.ts.
 */
import type { AppContext } from '../context.ts';
import { badRequest } from '../errors.ts';
import { queryEntitySync, type Row } from '../odata/collection-query.ts';
import { ok, type EntitySetDef, type ODataService } from '../odata/service.ts';
import { blacklistModel, checkFunction, checkResultModel, importAction, importErrorModel, importItemType, importResultModel } from './blacklist-model.ts';
import { applyPhoneRegion } from './blacklist-region.ts';
import { checkNumber, createItem, deleteItem, importItems, importItemsOf, parseItemBody, updateItem } from './blacklist-service.ts';
import { checkPhoneRegion } from './phone-region.ts';

/** The blacklist entity set: every seed endpoint plus Check. */
export function blacklistSet(ctx: AppContext): EntitySetDef {
  const { db } = ctx;
  const region = ctx.config.phoneRegion ? checkPhoneRegion(ctx.config.phoneRegion) : null;
  const byId = (id: number) => queryEntitySync(db, blacklistModel, id) as Row;
  return {
    model: blacklistModel,
    // list and get: the generic collection query / entity read over blacklistModel.
    create: {
      handler: (call) => ok.created(blacklistModel, byId(createItem(db, parseItemBody(call.body, true), region))),
    },
    update: {
      handler: (call) => {
        const id = call.key as number;
        const body = call.body as Record<string, unknown>;
        if (body.Id !== undefined && body.Id !== id) throw badRequest(`The body's Id ${JSON.stringify(body.Id)} does not match the key ${id}`);
        updateItem(db, id, parseItemBody(body, false), call.req.get('if-match'), region);
        return ok.entity(blacklistModel, byId(id));
      },
    },
    remove: {
      handler: (call) => {
        deleteItem(db, call.key as number, call.req.get('if-match'));
        return ok.noContent();
      },
    },
    operations: [
      {
        def: importAction,
        handler: (call) => {
          const result = importItems(db, importItemsOf(call.body), region);
          return ok.json({ '@odata.context': `${call.serviceRoot}/$metadata#Controller.BlacklistImportResult`, ...result });
        },
      },
      {
        def: checkFunction,
        permissions: ['cati_administrate', 'cati_integrate'],
        handler: (call) => {
          const result = checkNumber(db, call.args.telephoneNumber, region);
          return ok.json({ '@odata.context': `${call.serviceRoot}/$metadata#Controller.BlacklistCheckResult`, ...result });
        },
      },
    ],
  };
}

/** Registers the blacklist set and the types its operations take and return; brings stored numbers to the phone region. */
export function registerBlacklist(service: ODataService, ctx: AppContext): void {
  const region = ctx.config.phoneRegion ? checkPhoneRegion(ctx.config.phoneRegion) : null;
  if (ctx.config.phoneRegion && !region) throw new Error(`Unknown phone region '${ctx.config.phoneRegion}'`);
  applyPhoneRegion(ctx.db, region);
  for (const m of [checkResultModel, importErrorModel, importItemType, importResultModel]) service.registerType(m);
  service.registerSet(blacklistSet(ctx));
}
