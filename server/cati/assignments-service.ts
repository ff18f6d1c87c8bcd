import { recordAudit } from '../audit/audit-log.ts';
import type { Queryable, Store } from '../db/store.ts';
import { badRequest, notFound } from '../errors.ts';
import {
  groupAssignmentsModel, interviewerAssignmentsModel, runSource, surveyResourcesModel, type AssignmentSource,
} from './assignment-queries.ts';
import { assignmentChange, interviewerAssignmentRows, type AssignmentRecord } from '../events/assignment-events.ts';
import { publishChange, publishChanges } from '../events/publisher.ts';
import { assertGroup } from './groups-service.ts';
import { interviewerVersion } from './interviewers-service.ts';
import { assertActiveSurvey } from './surveys-service.ts';

/**
 * Assignment rules (docs/cati-api.md#semantics). Explicit = an interviewer assigned to a survey, or for a group its own
 * survey assignment; Implicit = through a group (for an interviewer: any group it belongs to, directly or
 * through nesting, assigned in its call centre; for a group: an ancestor group assigned);
 * ImplicitToSurveyCalls = single calls (interviews) assigned. AssignedCallsCount is the number of distinct
 * interviews of that survey assigned to the resource, counted from the assignment rows on every read.
 */
export type AssignmentType = 'Explicit' | 'Implicit' | 'ImplicitToSurveyCalls';

export type SurveyAssignment = {
  SurveyId: string;
  AssignmentType: AssignmentType;
  AssignedCallsCount: number;
};

export type ResourceAssignment = {
  ResourceId: number;
  Name: string;
  IsGroup: boolean;
  AssignedCallsCount: number;
};

/** 404 unless the call centre exists. */
export async function assertCallCenter(db: Queryable, callCenterId: number): Promise<void> {
  if ((await db.value('SELECT 1 FROM call_centers WHERE id = ?', [callCenterId])) === undefined) throw notFound(`Call centre ${callCenterId} does not exist`);
}

function assertInterviewId(interviewId: number): void {
  if (!Number.isInteger(interviewId) || interviewId < 0) throw badRequest('interviewId must be a non-negative whole number');
}

/** What an interviewer operation targets: existing interviewer, active survey. */
async function interviewerTarget(db: Queryable, interviewerId: number, surveyId?: string): Promise<void> {
  await interviewerVersion(db, interviewerId);
  if (surveyId !== undefined) await assertActiveSurvey(db, surveyId);
}

async function groupTarget(db: Queryable, groupId: number, callCenterId: number, surveyId?: string): Promise<void> {
  await assertGroup(db, groupId);
  await assertCallCenter(db, callCenterId);
  if (surveyId !== undefined) await assertActiveSurvey(db, surveyId);
}

/** The assignment event of an interviewer's row (its call centre is the interviewer's). */
async function interviewerRow(db: Queryable, interviewerId: number, surveyId: string, interviewId: number | null): Promise<AssignmentRecord> {
  const cc = (await db.value<number>('SELECT call_center_id FROM interviewers WHERE id = ?', [interviewerId]))!;
  return { SurveyId: surveyId, ResourceId: interviewerId, IsGroup: false, CallCenterId: cc, InterviewId: interviewId };
}

/**
 * Runs one assignment write with its audit row (entity `assignments`, action = the operation's name,
 * EntityId = the resource's address) in one transaction; nothing is audited when nothing changed.
 */
async function auditedWrite<T>(
  store: Store,
  operation: string,
  resource: string,
  write: (tx: Queryable) => Promise<{ result: T; changes: Record<string, unknown> | null }>,
): Promise<T> {
  return store.transaction(async (tx) => {
    const { result, changes } = await write(tx);
    if (changes) await recordAudit(tx, { action: operation, entity: 'assignments', entityId: resource, changes });
    return result;
  });
}

const interviewerAddress = (id: number) => `interviewers(${id})`;
const groupAddress = (id: number) => `groups(${id})`;

/** Interviewer `Controller.AssignOnSurvey`: an explicit assignment (idempotent). */
export async function interviewerAssignOnSurvey(store: Store, interviewerId: number, surveyId: string): Promise<void> {
  await auditedWrite(store, 'AssignOnSurvey', interviewerAddress(interviewerId), async (tx) => {
    await interviewerTarget(tx, interviewerId, surveyId);
    const n = (await tx.run('INSERT INTO interviewer_survey_assignments (interviewer_id, survey_id) VALUES (?, ?) ON CONFLICT DO NOTHING', [interviewerId, surveyId])).changes;
    if (n) await publishChange(tx, assignmentChange('created', await interviewerRow(tx, interviewerId, surveyId, null)));
    return { result: n, changes: n ? { SurveyId: surveyId } : null };
  });
}

/** Interviewer `Controller.DeAssignFromSurvey`: removes only the explicit assignment. */
export async function interviewerDeAssignFromSurvey(store: Store, interviewerId: number, surveyId: string): Promise<void> {
  await auditedWrite(store, 'DeAssignFromSurvey', interviewerAddress(interviewerId), async (tx) => {
    await interviewerTarget(tx, interviewerId, surveyId);
    const n = (await tx.run('DELETE FROM interviewer_survey_assignments WHERE interviewer_id = ? AND survey_id = ?', [interviewerId, surveyId])).changes;
    if (n) await publishChange(tx, assignmentChange('deleted', await interviewerRow(tx, interviewerId, surveyId, null)));
    return { result: n, changes: n ? { SurveyId: surveyId } : null };
  });
}

/** Interviewer `Controller.AssignOnCall`: assigns one interview of the survey. */
export async function interviewerAssignOnCall(store: Store, interviewerId: number, surveyId: string, interviewId: number): Promise<void> {
  await auditedWrite(store, 'AssignOnCall', interviewerAddress(interviewerId), async (tx) => {
    assertInterviewId(interviewId);
    await interviewerTarget(tx, interviewerId, surveyId);
    const n = (await tx.run('INSERT INTO interviewer_call_assignments (interviewer_id, survey_id, interview_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [interviewerId, surveyId, interviewId])).changes;
    if (n) await publishChange(tx, assignmentChange('created', await interviewerRow(tx, interviewerId, surveyId, interviewId)));
    return { result: n, changes: n ? { SurveyId: surveyId, InterviewId: interviewId } : null };
  });
}

/** Interviewer `Controller.DeAssignFromCalls`: removes its call assignments of the survey. */
export async function interviewerDeAssignFromCalls(store: Store, interviewerId: number, surveyId: string): Promise<void> {
  await interviewerTarget(store, interviewerId, surveyId);
  await auditedWrite(store, 'DeAssignFromCalls', interviewerAddress(interviewerId), async (tx) => {
    const rows = (await interviewerAssignmentRows(tx, interviewerId, surveyId)).filter((r) => r.InterviewId !== null);
    await tx.run('DELETE FROM interviewer_call_assignments WHERE interviewer_id = ? AND survey_id = ?', [interviewerId, surveyId]);
    await publishChanges(tx, rows.map((r) => assignmentChange('deleted', r)));
    return { result: rows, changes: rows.length ? { SurveyId: surveyId, InterviewIds: rows.map((r) => r.InterviewId) } : null };
  });
}

/** Interviewer `Controller.CleanAssignments`: removes every survey and call assignment of the interviewer. */
export async function interviewerCleanAssignments(store: Store, interviewerId: number): Promise<void> {
  await auditedWrite(store, 'CleanAssignments', interviewerAddress(interviewerId), async (tx) => {
    await interviewerTarget(tx, interviewerId);
    const rows = await interviewerAssignmentRows(tx, interviewerId);
    await tx.run('DELETE FROM interviewer_survey_assignments WHERE interviewer_id = ?', [interviewerId]);
    await tx.run('DELETE FROM interviewer_call_assignments WHERE interviewer_id = ?', [interviewerId]);
    const removed = rows.map((r) => ({ SurveyId: r.SurveyId, InterviewId: r.InterviewId }));
    await publishChanges(tx, rows.map((r) => assignmentChange('deleted', r)));
    return { result: rows, changes: rows.length ? { Removed: removed } : null };
  });
}

/** Interviewer `Controller.GetAssignments()`: one row per (SurveyId, AssignmentType). */
export async function interviewerAssignments(db: Queryable, interviewerId: number): Promise<SurveyAssignment[]> {
  return (await runSource(db, await interviewerAssignmentsSource(db, interviewerId))) as SurveyAssignment[];
}

/** The SQL source of an interviewer's GetAssignments (for the OData query options); 404 for an unknown interviewer. */
export async function interviewerAssignmentsSource(db: Queryable, interviewerId: number): Promise<AssignmentSource> {
  await interviewerTarget(db, interviewerId);
  return { model: interviewerAssignmentsModel, params: [interviewerId, interviewerId, interviewerId, interviewerId] };
}

const groupRow = (groupId: number, surveyId: string, callCenterId: number, interviewId: number | null): AssignmentRecord => ({
  SurveyId: surveyId, ResourceId: groupId, IsGroup: true, CallCenterId: callCenterId, InterviewId: interviewId,
});

/** Group `Controller.AssignOnSurvey`: members in that call centre get an Implicit assignment. */
export async function groupAssignOnSurvey(store: Store, groupId: number, surveyId: string, callCenterId: number): Promise<void> {
  await auditedWrite(store, 'AssignOnSurvey', groupAddress(groupId), async (tx) => {
    await groupTarget(tx, groupId, callCenterId, surveyId);
    const n = (await tx.run('INSERT INTO group_survey_assignments (group_id, survey_id, call_center_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [groupId, surveyId, callCenterId])).changes;
    if (n) await publishChange(tx, assignmentChange('created', groupRow(groupId, surveyId, callCenterId, null)));
    return { result: n, changes: n ? { SurveyId: surveyId, CallCenterId: callCenterId } : null };
  });
}

/** Group `Controller.DeAssignFromSurvey`. */
export async function groupDeAssignFromSurvey(store: Store, groupId: number, surveyId: string, callCenterId: number): Promise<void> {
  await auditedWrite(store, 'DeAssignFromSurvey', groupAddress(groupId), async (tx) => {
    await groupTarget(tx, groupId, callCenterId, surveyId);
    const n = (await tx.run('DELETE FROM group_survey_assignments WHERE group_id = ? AND survey_id = ? AND call_center_id = ?', [groupId, surveyId, callCenterId])).changes;
    if (n) await publishChange(tx, assignmentChange('deleted', groupRow(groupId, surveyId, callCenterId, null)));
    return { result: n, changes: n ? { SurveyId: surveyId, CallCenterId: callCenterId } : null };
  });
}

/** Group `Controller.AssignOnCall`. */
export async function groupAssignOnCall(store: Store, groupId: number, surveyId: string, interviewId: number, callCenterId: number): Promise<void> {
  await auditedWrite(store, 'AssignOnCall', groupAddress(groupId), async (tx) => {
    assertInterviewId(interviewId);
    await groupTarget(tx, groupId, callCenterId, surveyId);
    const n = (await tx.run('INSERT INTO group_call_assignments (group_id, survey_id, call_center_id, interview_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING', [groupId, surveyId, callCenterId, interviewId])).changes;
    if (n) await publishChange(tx, assignmentChange('created', groupRow(groupId, surveyId, callCenterId, interviewId)));
    return { result: n, changes: n ? { SurveyId: surveyId, InterviewId: interviewId, CallCenterId: callCenterId } : null };
  });
}

/** Group `Controller.DeAssignFromCalls`. */
export async function groupDeAssignFromCalls(store: Store, groupId: number, surveyId: string, callCenterId: number): Promise<void> {
  await groupTarget(store, groupId, callCenterId, surveyId);
  await auditedWrite(store, 'DeAssignFromCalls', groupAddress(groupId), async (tx) => {
    const ids = await tx.column<number>(
      'SELECT interview_id FROM group_call_assignments WHERE group_id = ? AND survey_id = ? AND call_center_id = ?',
      [groupId, surveyId, callCenterId],
    );
    await tx.run('DELETE FROM group_call_assignments WHERE group_id = ? AND survey_id = ? AND call_center_id = ?', [groupId, surveyId, callCenterId]);
    await publishChanges(tx, ids.map((i) => assignmentChange('deleted', groupRow(groupId, surveyId, callCenterId, i))));
    return { result: ids, changes: ids.length ? { SurveyId: surveyId, CallCenterId: callCenterId, InterviewIds: ids } : null };
  });
}

/** Group `Controller.GetAssignments(callCenterId)`. */
export async function groupAssignments(db: Queryable, groupId: number, callCenterId: number): Promise<SurveyAssignment[]> {
  return (await runSource(db, await groupAssignmentsSource(db, groupId, callCenterId))) as SurveyAssignment[];
}

/** The SQL source of a group's GetAssignments; 404 for an unknown group or call centre. */
export async function groupAssignmentsSource(db: Queryable, groupId: number, callCenterId: number): Promise<AssignmentSource> {
  await groupTarget(db, groupId, callCenterId);
  return { model: groupAssignmentsModel, params: [groupId, groupId, callCenterId, groupId, callCenterId, callCenterId] };
}

/** Interviewer ids that are direct members of the group in that call centre (`Controller.GetInterviewers`). */
export async function groupMemberIds(db: Queryable, groupId: number, callCenterId: number): Promise<number[]> {
  await groupTarget(db, groupId, callCenterId);
  return db.column<number>(
    `SELECT i.id FROM interviewer_groups m JOIN interviewers i ON i.id = m.interviewer_id
      WHERE m.group_id = ? AND i.call_center_id = ? ORDER BY i.id`,
    [groupId, callCenterId],
  );
}

/** Survey `Controller.GetAssignments(callCenterId)`: groups and interviewers assigned to it or to its calls. */
export async function surveyAssignments(db: Queryable, surveyId: string, callCenterId: number): Promise<ResourceAssignment[]> {
  const rows = await runSource(db, await surveyAssignmentsSource(db, surveyId, callCenterId));
  return rows.map((r) => ({ ...r, IsGroup: r.IsGroup === 1 }) as ResourceAssignment);
}

/** The SQL source of a survey's GetAssignments; 404 for an unknown/SoftDeleted survey or unknown call centre. */
export async function surveyAssignmentsSource(db: Queryable, surveyId: string, callCenterId: number): Promise<AssignmentSource> {
  await assertActiveSurvey(db, surveyId);
  await assertCallCenter(db, callCenterId);
  return { model: surveyResourcesModel, params: [surveyId, callCenterId, surveyId, surveyId, callCenterId, surveyId, callCenterId] };
}
