/**
 * /cati/interviewers (read, bound operations of seed §4.5) and /cati/interviewerproperties (write).
 */
import type { AppContext } from '../context.ts';
import { queryEntitySync, type Row } from '../odata/collection-query.ts';
import type { FunctionDef } from '../odata/model.ts';
import { fromSource } from './assignment-queries.ts';
import { ok, type EntitySetDef, type OperationRoute } from '../odata/service.ts';
import {
  interviewerAssignmentsSource, interviewerAssignOnCall, interviewerAssignOnSurvey, interviewerCleanAssignments,
  interviewerDeAssignFromCalls, interviewerDeAssignFromSurvey,
} from './assignments-service.ts';
import { groupModel, interviewerModel, interviewerPropertiesModel } from './cati-models.ts';
import { withParents } from './groups-set.ts';
import { assignmentChange, interviewerAssignmentRowsSync } from '../events/assignment-events.ts';
import { entityRecordSync, publishChangeSync, publishChangesSync, type EventAction } from '../events/publisher.ts';
import type { Db } from '../db/open.ts';
import { createInterviewer, deleteInterviewer, interviewerVersion, lockInterviewer, updateInterviewer } from './interviewers-service.ts';

/** Announces a committed interviewer change on /events with the record as /interviewers returns it. */
function publishInterviewer(db: Db, action: EventAction, id: number): void {
  publishChangeSync(db, { type: 'interviewer', action, id, record: entityRecordSync(db, interviewerModel, id) });
}

/** Lock or Unlock, announced when the state changed. */
function lock(db: Db, id: number, locked: boolean): void {
  if (lockInterviewer(db, id, locked)) publishInterviewer(db, locked ? 'locked' : 'unlocked', id);
}

const fn = (name: string, parameters: FunctionDef['parameters'], returnType = 'Edm.Boolean', sideEffectFree = false): FunctionDef => ({
  name, bindingType: 'Interviewer', parameters, returnType, sideEffectFree,
});
const surveyId = { name: 'surveyId', type: 'Edm.String' } as const;
const interviewId = { name: 'interviewId', type: 'Edm.Int32' } as const;

/** The read set with the interviewer's bound operations. */
export function interviewersSet(ctx: AppContext): EntitySetDef {
  const { db } = ctx;
  const done = () => ok.value('Edm.Boolean', true);
  const operations: OperationRoute[] = [
    {
      def: fn('AssignOnCall', [surveyId, interviewId]),
      handler: (c) => (interviewerAssignOnCall(db, c.key as number, c.args.surveyId as string, c.args.interviewId as number), done()),
    },
    { def: fn('AssignOnSurvey', [surveyId]), handler: (c) => (interviewerAssignOnSurvey(db, c.key as number, c.args.surveyId as string), done()) },
    { def: fn('CleanAssignments', []), handler: (c) => (interviewerCleanAssignments(db, c.key as number), done()) },
    { def: fn('DeAssignFromCalls', [surveyId]), handler: (c) => (interviewerDeAssignFromCalls(db, c.key as number, c.args.surveyId as string), done()) },
    { def: fn('DeAssignFromSurvey', [surveyId]), handler: (c) => (interviewerDeAssignFromSurvey(db, c.key as number, c.args.surveyId as string), done()) },
    {
      def: fn('GetAssignments', [], 'Collection(Controller.SurveyAssignment)', true),
      handler: (c) => fromSource(c, interviewerAssignmentsSource(db, c.key as number)),
    },
    {
      def: fn('GetGroups', [], 'Collection(Controller.Group)', true),
      handler: (c) => {
        interviewerVersion(db, c.key as number);
        return c.query(groupModel, {
          scope: { where: 'id IN (SELECT group_id FROM interviewer_groups WHERE interviewer_id = ?)', params: [c.key] },
          postProcess: withParents(ctx),
        });
      },
    },
    { def: fn('Lock', []), handler: (c) => (lock(db, c.key as number, true), done()) },
    { def: fn('Unlock', []), handler: (c) => (lock(db, c.key as number, false), done()) },
  ];
  return { model: interviewerModel, operations };
}

/**
 * The write set: POST (InterviewerId absent or 0), PUT and PATCH (fields left out keep their values),
 * DELETE; answers are Interviewer entities. Not readable, so left out of the service document.
 */
export function interviewerPropertiesSet(ctx: AppContext): EntitySetDef {
  const { db } = ctx;
  const byId = (id: number) => queryEntitySync(db, interviewerModel, id) as Row;
  return {
    model: interviewerPropertiesModel,
    list: false,
    get: false,
    includeInServiceDocument: false,
    create: {
      handler: async (c) => {
        const id = await createInterviewer(db, c.body);
        publishInterviewer(db, 'created', id);
        return ok.created(interviewerModel, byId(id));
      },
    },
    update: {
      handler: async (c) => {
        await updateInterviewer(db, c.key as number, c.body, c.req.get('if-match'));
        publishInterviewer(db, 'updated', c.key as number);
        return ok.entity(interviewerModel, byId(c.key as number));
      },
    },
    remove: {
      handler: (c) => {
        const id = c.key as number;
        // Read before the delete (same tick, nothing interleaves): the record and the assignments it takes along.
        const record = entityRecordSync(db, interviewerModel, id);
        const assignments = interviewerAssignmentRowsSync(db, id);
        deleteInterviewer(db, id, c.req.get('if-match'));
        publishChangesSync(db, [{ type: 'interviewer', action: 'deleted', id, record }, ...assignments.map((a) => assignmentChange('deleted', a))]);
        return ok.noContent();
      },
    },
  };
}
