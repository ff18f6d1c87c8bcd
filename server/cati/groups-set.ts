/**
 * /cati/groups: CRUD (Name unique, ParentGroups nest without cycles) and the bound operations of seed §4.4.
 */
import type { AppContext } from '../context.ts';
import { assignmentChange } from '../events/assignment-events.ts';
import { publishChanges } from '../events/publisher.ts';
import { queryEntity, type Row } from '../odata/collection-query.ts';
import type { FunctionDef } from '../odata/model.ts';
import { fromSource } from './assignment-queries.ts';
import { ok, type EntitySetDef, type OperationRoute } from '../odata/service.ts';
import {
  assertCallCenter, groupAssignmentsSource, groupAssignOnCall, groupAssignOnSurvey, groupDeAssignFromCalls, groupDeAssignFromSurvey,
} from './assignments-service.ts';
import { groupModel, interviewerModel } from './cati-models.ts';
import { assertGroup, createGroup, deleteGroup, parentGroupsOf, updateGroup } from './groups-service.ts';

const fn = (name: string, parameters: FunctionDef['parameters'], returnType = 'Edm.Boolean', sideEffectFree = false): FunctionDef => ({
  name, bindingType: 'Group', parameters, returnType, sideEffectFree,
});
const surveyId = { name: 'surveyId', type: 'Edm.String' } as const;
const callCenterId = { name: 'callCenterId', type: 'Edm.Int32' } as const;
const interviewId = { name: 'interviewId', type: 'Edm.Int32' } as const;

/** Adds ParentGroups to a page of group rows (one query per page). */
export function withParents(ctx: AppContext) {
  return async (rows: Row[]): Promise<Row[]> => {
    const parents = await parentGroupsOf(ctx.store, rows.map((r) => r.GroupId as number));
    return rows.map((row) => ({ ...row, ParentGroups: parents.get(row.GroupId as number) ?? [] }));
  };
}

/** The groups entity set. */
export function groupsSet(ctx: AppContext): EntitySetDef {
  const { store } = ctx;
  const postProcess = withParents(ctx);
  const byId = async (id: number) => (await queryEntity(store, groupModel, id, { postProcess })) as Row;
  const done = () => ok.value('Edm.Boolean', true);
  const operations: OperationRoute[] = [
    {
      def: fn('AssignOnCall', [surveyId, interviewId, callCenterId]),
      handler: async (c) => (await groupAssignOnCall(store, c.key as number, c.args.surveyId as string, c.args.interviewId as number, c.args.callCenterId as number), done()),
    },
    {
      def: fn('AssignOnSurvey', [surveyId, callCenterId]),
      handler: async (c) => (await groupAssignOnSurvey(store, c.key as number, c.args.surveyId as string, c.args.callCenterId as number), done()),
    },
    {
      def: fn('DeAssignFromCalls', [surveyId, callCenterId]),
      handler: async (c) => (await groupDeAssignFromCalls(store, c.key as number, c.args.surveyId as string, c.args.callCenterId as number), done()),
    },
    {
      def: fn('DeAssignFromSurvey', [surveyId, callCenterId]),
      handler: async (c) => (await groupDeAssignFromSurvey(store, c.key as number, c.args.surveyId as string, c.args.callCenterId as number), done()),
    },
    {
      def: fn('GetAssignments', [callCenterId], 'Collection(Controller.SurveyAssignment)', true),
      handler: async (c) => fromSource(c, await groupAssignmentsSource(store, c.key as number, c.args.callCenterId as number)),
    },
    {
      def: fn('GetInterviewers', [callCenterId], 'Collection(Controller.Interviewer)', true),
      handler: async (c) => {
        await assertGroup(store, c.key as number);
        await assertCallCenter(store, c.args.callCenterId as number);
        return c.query(interviewerModel, {
          scope: { where: 'id IN (SELECT interviewer_id FROM interviewer_groups WHERE group_id = ?) AND call_center_id = ?', params: [c.key, c.args.callCenterId] },
        });
      },
    },
  ];
  return {
    model: groupModel,
    postProcess,
    create: { handler: async (c) => ok.created(groupModel, await byId(await createGroup(store, c.body))) },
    update: {
      handler: async (c) => {
        await updateGroup(store, c.key as number, c.body, c.req.get('if-match'));
        return ok.entity(groupModel, await byId(c.key as number));
      },
    },
    remove: {
      handler: async (c) => {
        // The group's assignments go with it (read in its transaction, a savepoint of this one), announced with it.
        await store.transaction(async (tx) => {
          const assignments = await deleteGroup(store, c.key as number, c.req.get('if-match'));
          await publishChanges(tx, assignments.map((a) => assignmentChange('deleted', a)));
        });
        return ok.noContent();
      },
    },
    operations,
  };
}
