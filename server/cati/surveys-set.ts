/**
 * /cati/surveys: read for supervisors (SoftDeleted surveys answer 404), bound GetAssignments and
 * GetBasicProperties (seed §4.6), and the ingest writes POST / PUT for `cati_integrate` (docs/cati-api.md#ingest).
 */
import type { AppContext } from '../context.ts';
import { queryEntity, type Row } from '../odata/collection-query.ts';
import { fromSource } from './assignment-queries.ts';
import { ok, type EntitySetDef } from '../odata/service.ts';
import { surveyAssignmentsSource } from './assignments-service.ts';
import { ACTIVE_SURVEYS, basicPropertiesModel, surveyModel } from './cati-models.ts';
import { createSurvey, getBasicProperties, surveyVariables, updateSurvey } from './surveys-service.ts';

/** The surveys entity set. */
export function surveysSet(ctx: AppContext): EntitySetDef {
  const { store } = ctx;
  const postProcess = async (rows: Row[]): Promise<Row[]> => {
    const variables = await surveyVariables(store, rows.map((r) => r.SurveyId as string));
    return rows.map((row) => ({ ...row, Variables: variables.get(row.SurveyId as string) ?? [] }));
  };
  // The ingest client sees its own write even when the survey is SoftDeleted.
  const byId = async (id: string) => (await queryEntity(store, surveyModel, id, { postProcess })) as Row;
  return {
    model: surveyModel,
    scope: () => ACTIVE_SURVEYS,
    postProcess,
    extraWritable: ['BasicProperties'],
    create: { permissions: ['cati_integrate'], handler: async (c) => ok.created(surveyModel, await byId(await createSurvey(store, c.body))) },
    update: {
      permissions: ['cati_integrate'],
      handler: async (c) => {
        await updateSurvey(store, c.key as string, c.body, c.req.get('if-match'));
        return ok.entity(surveyModel, await byId(c.key as string));
      },
    },
    operations: [
      {
        def: {
          name: 'GetAssignments', bindingType: 'Survey', parameters: [{ name: 'callCenterId', type: 'Edm.Int32' }],
          returnType: 'Collection(Controller.ResourceAssignment)', sideEffectFree: true,
        },
        handler: async (c) => fromSource(c, await surveyAssignmentsSource(store, c.key as string, c.args.callCenterId as number)),
      },
      {
        def: { name: 'GetBasicProperties', bindingType: 'Survey', parameters: [], returnType: 'Controller.SurveyBasicProperties', sideEffectFree: true },
        handler: async (c) => ok.entity(basicPropertiesModel, (await getBasicProperties(store, c.key as string)) as unknown as Row),
      },
    ],
  };
}
