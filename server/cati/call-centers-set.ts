/** /cati/callcenters (extension): list, create and update call centres (Name, TimeZone). */
import type { AppContext } from '../context.ts';
import { queryEntitySync, type Row } from '../odata/collection-query.ts';
import { ok, type EntitySetDef, type Route } from '../odata/service.ts';
import { createCallCenter, updateCallCenter } from './call-centers-service.ts';
import { callCenterModel } from './cati-models.ts';

/** The call centres entity set. */
export function callCentersSet(ctx: AppContext): EntitySetDef {
  const { db } = ctx;
  const byId = (id: number) => queryEntitySync(db, callCenterModel, id) as Row;
  const update: Route = {
    handler: (c) => {
      updateCallCenter(db, c.key as number, c.body, c.req.get('if-match'));
      return ok.entity(callCenterModel, byId(c.key as number));
    },
  };
  return {
    model: callCenterModel,
    create: { handler: (c) => ok.created(callCenterModel, byId(createCallCenter(db, c.body))) },
    update, // also serves PATCH, after the dispatcher's PATCH body rule
  };
}
