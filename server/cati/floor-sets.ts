/**
 * The live floor's sets (docs/cati-api.md#floor): /cati/breaktypes (PUT/PATCH), /cati/extendedstatuses (POST, PUT,
 * PATCH, DELETE) and the read-only /cati/floor, all through the OData dispatcher.
 */
import type { AppContext } from '../context.ts';
import type { Queryable } from '../db/store.ts';
import { queryEntity, type Row } from '../odata/collection-query.ts';
import { ok, type EntitySetDef, type Route } from '../odata/service.ts';
import { updateBreakType } from './break-types-service.ts';
import { createExtendedStatus, deleteExtendedStatus, updateExtendedStatus } from './extended-statuses-service.ts';
import { breakTypeModel, extendedStatusModel, floorModel } from './floor-models.ts';
import { serverTimeZone, todayIn } from '../../common/time-zones.ts';

/** `/cati/breaktypes`: listed and read like any set; supervisors change Name, MaxMinutes, IsPaid. */
export function breakTypesSet(ctx: AppContext): EntitySetDef {
  const { store } = ctx;
  const update: Route = {
    handler: async (c) => {
      await updateBreakType(store, c.key as number, c.body, c.req.get('if-match'));
      return ok.entity(breakTypeModel, (await queryEntity(store, breakTypeModel, c.key)) as Row);
    },
  };
  return { model: breakTypeModel, update }; // update also serves PATCH, after the dispatcher's PATCH body rule
}

/** `/cati/extendedstatuses`: the outcome table, editable. */
export function extendedStatusesSet(ctx: AppContext): EntitySetDef {
  const { store } = ctx;
  const byCode = async (code: number) => (await queryEntity(store, extendedStatusModel, code)) as Row;
  const update: Route = {
    handler: async (c) => {
      await updateExtendedStatus(store, c.key as number, c.body, c.req.get('if-match'));
      return ok.entity(extendedStatusModel, await byCode(c.key as number));
    },
  };
  return {
    model: extendedStatusModel,
    create: { handler: async (c) => ok.created(extendedStatusModel, await byCode(await createExtendedStatus(store, c.body))) },
    update, // also serves PATCH, after the dispatcher's PATCH body rule
    remove: {
      handler: async (c) => {
        await deleteExtendedStatus(store, c.key as number, c.req.get('if-match'));
        return ok.noContent();
      },
    },
  };
}

/** The bucket of the `call_counts` summary (migration 015). */
const COUNT_BUCKET_MS = 900_000;

/** The values of floorModel's FROM placeholders at `now`: now, the staleness cutoff, each centre's today. */
export async function floorParams(db: Queryable, now: number, staleSessionHours: number): Promise<unknown[]> {
  const centres = (await db.rows('SELECT id, time_zone FROM call_centers')) as [number, string | null][];
  const days = centres.map(([id, zone]) => {
    const [start, end] = todayIn(zone ?? serverTimeZone(), now);
    // Whole 15-minute buckets of the call_counts summary (migration 015); always so for today's zones.
    return [id, start, end, start >= 0 && start % COUNT_BUCKET_MS === 0 && end % COUNT_BUCKET_MS === 0 ? 1 : 0];
  });
  return [now, now - staleSessionHours * 3_600_000, JSON.stringify(days)];
}

/** `/cati/floor`: read-only, one row per open, non-stale session; $filter/$orderby/$count/paging as any set. */
export function floorSet(ctx: AppContext): EntitySetDef {
  return {
    model: floorModel(ctx.store.dialect),
    scope: async () => ({ fromParams: await floorParams(ctx.store, Date.now(), ctx.config.staleSessionHours) }),
  };
}
