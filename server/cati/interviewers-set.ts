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
import { groupModel, interviewerModel } from './cati-models.ts';
import { withParents } from './groups-set.ts';
import { createInterviewer, deleteInterviewer, interviewerVersion, lockInterviewer, updateInterviewer } from './interviewers-service.ts';

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
    { def: fn('Lock', []), handler: (c) => (lockInterviewer(db, c.key as number, true), done()) },
    { def: fn('Unlock', []), handler: (c) => (lockInterviewer(db, c.key as number, false), done()) },
  ];
  return { model: interviewerModel, operations };
}

/** The write set: POST (InterviewerId absent or 0), PUT (fields left out keep their values), DELETE. */
export function interviewerPropertiesSet(ctx: AppContext): EntitySetDef {
  const { db } = ctx;
  const model = { ...interviewerModel, setName: 'interviewerproperties' };
  const byId = (id: number) => queryEntity(db, interviewerModel, id) as Row;
  return {
    model,
    list: false,
    get: false,
    create: { handler: async (c) => ok.created(interviewerModel, byId(await createInterviewer(db, c.body))) },
    update: {
      handler: async (c) => {
        await updateInterviewer(db, c.key as number, c.body, c.req.get('if-match'));
        return ok.entity(interviewerModel, byId(c.key as number));
      },
    },
    remove: {
      handler: (c) => {
        deleteInterviewer(db, c.key as number, c.req.get('if-match'));
        return ok.noContent();
      },
    },
  };
}
