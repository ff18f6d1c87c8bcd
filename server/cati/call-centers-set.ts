/** /cati/callcenters (extension): list and create call centres. */
import type { AppContext } from '../context.ts';
import { queryEntity, type Row } from '../odata/collection-query.ts';
import { ok, type EntitySetDef } from '../odata/service.ts';
import { createCallCenter } from './call-centers-service.ts';
import { callCenterModel } from './cati-models.ts';

/** The call centres entity set. */
export function callCentersSet(ctx: AppContext): EntitySetDef {
  const { db } = ctx;
  return {
    model: callCenterModel,
    create: { handler: (c) => ok.created(callCenterModel, queryEntity(db, callCenterModel, createCallCenter(db, c.body)) as Row) },
  };
}
