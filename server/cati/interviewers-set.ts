/**
 * /cati/interviewers (read, bound operations of seed §4.5) and /cati/interviewerproperties (write).
 */
import type { AppContext } from '../context.ts';
import { queryEntity, type Row } from '../odata/collection-query.ts';
import type { FunctionDef } from '../odata/model.ts';
import { fromSource } from './assignment-queries.ts';
import { ok, type EntitySetDef, type OperationRoute } from '../odata/service.ts';
import {
  interviewerAssignmentsSource, interviewerAssignOnCall, interviewerAssignOnSurvey, interviewerCleanAssignments,
  interviewerDeAssignFromCalls, interviewerDeAssignFromSurvey,
} from './assignments-service.ts';
import { groupModel, interviewerModel, interviewerPropertiesModel } from './cati-models.ts';
import { withParents } from './groups-set.ts';
import { assignmentChange } from '../events/assignment-events.ts';
import { entityRecord, publishChange, publishChanges, type EventAction } from '../events/publisher.ts';
import type { Queryable, Store } from '../db/store.ts';
import { createInterviewer, deleteInterviewer, interviewerVersion, lockInterviewer, updateInterviewer } from './interviewers-service.ts';

/**
 * Publishes an interviewer change on /events, with the record as /interviewers returns it, in `tx`: the transaction
 * around the service's write (whose own transaction becomes a savepoint of it), so the event commits with the change.
 */
async function publishInterviewer(tx: Queryable, action: EventAction, id: number): Promise<void> {
  await publishChange(tx, { type: 'interviewer', action, id, record: await entityRecord(tx, interviewerModel, id) });
}

/** Lock or Unlock, announced when the state changed. */
async function lock(store: Store, id: number, locked: boolean): Promise<void> {
  await store.transaction(async (tx) => {
    if (await lockInterviewer(store, id, locked)) await publishInterviewer(tx, locked ? 'locked' : 'unlocked', id);
  });
}

const fn = (name: string, parameters: FunctionDef['parameters'], returnType = 'Edm.Boolean', sideEffectFree = false): FunctionDef => ({
  name, bindingType: 'Interviewer', parameters, returnType, sideEffectFree,
});
const surveyId = { name: 'surveyId', type: 'Edm.String' } as const;
const interviewId = { name: 'interviewId', type: 'Edm.Int32' } as const;

/** The read set with the interviewer's bound operations. */
export function interviewersSet(ctx: AppContext): EntitySetDef {
  const { store } = ctx;
  const done = () => ok.value('Edm.Boolean', true);
  const key = (c: { key: unknown }) => c.key as number;
  const survey = (c: { args: Record<string, unknown> }) => c.args.surveyId as string;
  const operations: OperationRoute[] = [
    {
      def: fn('AssignOnCall', [surveyId, interviewId]),
      handler: async (c) => (await interviewerAssignOnCall(store, key(c), survey(c), c.args.interviewId as number), done()),
    },
    { def: fn('AssignOnSurvey', [surveyId]), handler: async (c) => (await interviewerAssignOnSurvey(store, key(c), survey(c)), done()) },
    { def: fn('CleanAssignments', []), handler: async (c) => (await interviewerCleanAssignments(store, key(c)), done()) },
    { def: fn('DeAssignFromCalls', [surveyId]), handler: async (c) => (await interviewerDeAssignFromCalls(store, key(c), survey(c)), done()) },
    { def: fn('DeAssignFromSurvey', [surveyId]), handler: async (c) => (await interviewerDeAssignFromSurvey(store, key(c), survey(c)), done()) },
    {
      def: fn('GetAssignments', [], 'Collection(Controller.SurveyAssignment)', true),
      handler: async (c) => fromSource(c, await interviewerAssignmentsSource(store, key(c))),
    },
    {
      def: fn('GetGroups', [], 'Collection(Controller.Group)', true),
      handler: async (c) => {
        await interviewerVersion(store, c.key as number);
        return c.query(groupModel, {
          scope: { where: 'id IN (SELECT group_id FROM interviewer_groups WHERE interviewer_id = ?)', params: [c.key] },
          postProcess: withParents(ctx),
        });
      },
    },
    { def: fn('Lock', []), handler: async (c) => (await lock(store, key(c), true), done()) },
    { def: fn('Unlock', []), handler: async (c) => (await lock(store, key(c), false), done()) },
  ];
  return { model: interviewerModel, operations };
}

/**
 * The write set: POST (InterviewerId absent or 0), PUT and PATCH (fields left out keep their values),
 * DELETE; answers are Interviewer entities. Not readable, so left out of the service document.
 */
export function interviewerPropertiesSet(ctx: AppContext): EntitySetDef {
  const { store } = ctx;
  const byId = async (id: number) => (await queryEntity(store, interviewerModel, id)) as Row;
  return {
    model: interviewerPropertiesModel,
    list: false,
    get: false,
    includeInServiceDocument: false,
    create: {
      handler: async (c) => {
        const id = await store.transaction(async (tx) => {
          const created = await createInterviewer(store, c.body);
          await publishInterviewer(tx, 'created', created);
          return created;
        });
        return ok.created(interviewerModel, await byId(id));
      },
    },
    update: {
      handler: async (c) => {
        await store.transaction(async (tx) => {
          await updateInterviewer(store, c.key as number, c.body, c.req.get('if-match'));
          await publishInterviewer(tx, 'updated', c.key as number);
        });
        return ok.entity(interviewerModel, await byId(c.key as number));
      },
    },
    remove: {
      handler: async (c) => {
        const id = c.key as number;
        // Read in the delete's transaction: the record and the assignments it takes along.
        await store.transaction(async (tx) => {
          const { record, assignments } = await deleteInterviewer(store, id, c.req.get('if-match'), (inner) => entityRecord(inner, interviewerModel, id));
          await publishChanges(tx, [{ type: 'interviewer', action: 'deleted', id, record }, ...assignments.map((a) => assignmentChange('deleted', a))]);
        });
        return ok.noContent();
      },
    },
  };
}
