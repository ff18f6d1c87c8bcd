/**
 * History for supervisors (/breakhistory, /callhistory, /interviewersessionhistory,
 * /callhistorywithvariables) and its ingest for `cati_integrate` (POST batches, PATCH closing an open call,
 * break or session).
 */
import type { AppContext } from '../context.ts';
import type { Store } from '../db/store.ts';
import { checkSelect, queryEntity, type Row } from '../odata/collection-query.ts';
import type { EntityModel } from '../odata/model.ts';
import { ok, type EntitySetDef, type Route } from '../odata/service.ts';
import { breakHistoryModel, callHistoryModel, sessionHistoryModel } from './cati-models.ts';
import { closeBreak, closeCall, closeSession } from './history-close.ts';
import { ingestHistory, type HistoryKind } from './history-ingest.ts';
import { callHistoryWithVariablesModel, readHistoryWithVariablesRequest, variableExportColumns, variablesAttacher } from './history-with-variables.ts';
import { cheapPathApplies, historyWithVariablesPage, skipInSteps } from './history-with-variables-page.ts';

function ingestRoute(ctx: AppContext, kind: HistoryKind): EntitySetDef['create'] {
  return { permissions: ['cati_integrate'], handler: async (c) => ok.json({ value: await ingestHistory(ctx.store, kind, c.body) }, 201) };
}

/** PATCH closing an open record (cati_integrate), answering the closed record. */
function closeRoute(ctx: AppContext, model: EntityModel, close: (store: Store, id: number, body: unknown, ifMatch?: string) => Promise<void>): Route {
  return {
    permissions: ['cati_integrate'],
    handler: async (c) => {
      await close(ctx.store, c.key as number, c.body, c.req.get('if-match'));
      return ok.entity(model, (await queryEntity(ctx.store, model, c.key)) as Row);
    },
  };
}

/** The three history entity sets with their ingest routes. */
export function historySets(ctx: AppContext): EntitySetDef[] {
  return [
    { model: breakHistoryModel, create: ingestRoute(ctx, 'breakhistory'), patch: closeRoute(ctx, breakHistoryModel, closeBreak) },
    { model: callHistoryModel, create: ingestRoute(ctx, 'callhistory'), patch: closeRoute(ctx, callHistoryModel, closeCall) },
    {
      model: sessionHistoryModel,
      create: ingestRoute(ctx, 'interviewersessionhistory'),
      // GET by SessionId answers a collection holding that one session (docs/cati-api.md), so $metadata declares
      // the set not readable by key (ReadByKeyRestrictions Readable false).
      get: { handler: async (c) => ok.collection(sessionHistoryModel, [await c.entity()]) },
      keyReadAnswersCollection: true,
      patch: closeRoute(ctx, sessionHistoryModel, closeSession),
    },
  ];
}

/** /callhistorywithvariables: a query-only set over a parameterised UNION ALL of calls, breaks and sessions. */
export function historyWithVariablesSet(ctx: AppContext): EntitySetDef {
  const { store } = ctx;
  const model = callHistoryWithVariablesModel(store.dialect);
  return {
    model,
    get: false,
    list: {
      handler: async (c) => {
        const request = await readHistoryWithVariablesRequest(store, c.options.params);
        if (!c.exporting && cheapPathApplies(c.options)) {
          await skipInSteps(store, request, c.options);
          checkSelect(model, c.options.select);
          const page = await historyWithVariablesPage(store, request, c.options);
          return ok.collection(model, { ...page, rows: page.rows.length ? await variablesAttacher(store, request.variables)(page.rows) : [] });
        }
        return c.query(callHistoryWithVariablesModel(store.dialect, request.bounds), {
          scope: { fromParams: request.fromParams },
          postProcess: variablesAttacher(store, request.variables),
          exportColumns: variableExportColumns(store.dialect, request.variables),
        });
      },
    },
  };
}
