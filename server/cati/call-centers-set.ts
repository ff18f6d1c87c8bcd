/** /cati/callcenters (extension): list, create and update call centres (Name, TimeZone). */
import type { AppContext } from '../context.ts';
import { queryEntity, type Row } from '../odata/collection-query.ts';
import { ok, type EntitySetDef, type Route } from '../odata/service.ts';
import { createCallCenter, updateCallCenter } from './call-centers-service.ts';
import { callCenterModel } from './cati-models.ts';

/** The call centres entity set. */
export function callCentersSet(ctx: AppContext): EntitySetDef {
  const { store } = ctx;
  const byId = async (id: number) => (await queryEntity(store, callCenterModel, id)) as Row;
  const update: Route = {
    handler: async (c) => {
      await updateCallCenter(store, c.key as number, c.body, c.req.get('if-match'));
      return ok.entity(callCenterModel, await byId(c.key as number));
    },
  };
  return {
    model: callCenterModel,
    create: { handler: async (c) => ok.created(callCenterModel, await byId(await createCallCenter(store, c.body))) },
    update, // also serves PATCH, after the dispatcher's PATCH body rule
  };
}
