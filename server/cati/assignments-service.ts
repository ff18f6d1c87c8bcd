import { recordAuditSync } from '../audit/audit-log.ts';
import type { Db } from '../db/open.ts';
import { badRequest, notFound } from '../errors.ts';
import {
  groupAssignmentsModel, interviewerAssignmentsModel, runSource, surveyResourcesModel, type AssignmentSource,
} from './assignment-queries.ts';
import { assignmentChange, interviewerAssignmentRowsSync, type AssignmentRecord } from '../events/assignment-events.ts';
import { publishChangeSync, publishChangesSync } from '../events/publisher.ts';
import { assertGroup } from './groups-service.ts';
import { interviewerVersion } from './interviewers-service.ts';
import { assertActiveSurvey } from './surveys-service.ts';

/**
 * Assignment rules (CONTRACT §3). Explicit = an interviewer assigned to a survey, or for a group its own
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
export function assertCallCenter(db: Db, callCenterId: number): void {
  if (!db.prepare('SELECT 1 FROM call_centers WHERE id = ?').get(callCenterId)) throw notFound(`Call centre ${callCenterId} does not exist`);
}

function assertInterviewId(interviewId: number): void {
  if (!Number.isInteger(interviewId) || interviewId < 0) throw badRequest('interviewId must be a non-negative whole number');
}

/** What an interviewer operation targets: existing interviewer, active survey. */
function interviewerTarget(db: Db, interviewerId: number, surveyId?: string): void {
  interviewerVersion(db, interviewerId);
  if (surveyId !== undefined) assertActiveSurvey(db, surveyId);
}

function groupTarget(db: Db, groupId: number, callCenterId: number, surveyId?: string): void {
  assertGroup(db, groupId);
  assertCallCenter(db, callCenterId);
  if (surveyId !== undefined) assertActiveSurvey(db, surveyId);
}

/** The assignment event of an interviewer's row (its call centre is the interviewer's). */
function interviewerRow(db: Db, interviewerId: number, surveyId: string, interviewId: number | null): AssignmentRecord {
  const cc = db.prepare('SELECT call_center_id FROM interviewers WHERE id = ?').pluck().get(interviewerId) as number;
  return { SurveyId: surveyId, ResourceId: interviewerId, IsGroup: false, CallCenterId: cc, InterviewId: interviewId };
}

/**
 * Runs one assignment write with its audit row (entity `assignments`, action = the operation's name,
 * EntityId = the resource's address) in one transaction; nothing is audited when nothing changed.
 */
function auditedWrite<T>(db: Db, operation: string, resource: string, write: () => { result: T; changes: Record<string, unknown> | null }): T {
  return db.transaction(() => {
    const { result, changes } = write();
    if (changes) recordAuditSync(db, { action: operation, entity: 'assignments', entityId: resource, changes });
    return result;
  }).immediate();
}

const interviewerAddress = (id: number) => `interviewers(${id})`;
const groupAddress = (id: number) => `groups(${id})`;

/** Interviewer `Controller.AssignOnSurvey`: an explicit assignment (idempotent). */
export function interviewerAssignOnSurvey(db: Db, interviewerId: number, surveyId: string): void {
  const changes = auditedWrite(db, 'AssignOnSurvey', interviewerAddress(interviewerId), () => {
    interviewerTarget(db, interviewerId, surveyId);
    const n = db.prepare('INSERT OR IGNORE INTO interviewer_survey_assignments (interviewer_id, survey_id) VALUES (?, ?)').run(interviewerId, surveyId).changes;
    return { result: n, changes: n ? { SurveyId: surveyId } : null };
  });
  if (changes) publishChangeSync(db, assignmentChange('created', interviewerRow(db, interviewerId, surveyId, null)));
}

/** Interviewer `Controller.DeAssignFromSurvey`: removes only the explicit assignment. */
export function interviewerDeAssignFromSurvey(db: Db, interviewerId: number, surveyId: string): void {
  const changes = auditedWrite(db, 'DeAssignFromSurvey', interviewerAddress(interviewerId), () => {
    interviewerTarget(db, interviewerId, surveyId);
    const n = db.prepare('DELETE FROM interviewer_survey_assignments WHERE interviewer_id = ? AND survey_id = ?').run(interviewerId, surveyId).changes;
    return { result: n, changes: n ? { SurveyId: surveyId } : null };
  });
  if (changes) publishChangeSync(db, assignmentChange('deleted', interviewerRow(db, interviewerId, surveyId, null)));
}

/** Interviewer `Controller.AssignOnCall`: assigns one interview of the survey. */
export function interviewerAssignOnCall(db: Db, interviewerId: number, surveyId: string, interviewId: number): void {
  const changes = auditedWrite(db, 'AssignOnCall', interviewerAddress(interviewerId), () => {
    assertInterviewId(interviewId);
    interviewerTarget(db, interviewerId, surveyId);
    const n = db
      .prepare('INSERT OR IGNORE INTO interviewer_call_assignments (interviewer_id, survey_id, interview_id) VALUES (?, ?, ?)')
      .run(interviewerId, surveyId, interviewId).changes;
    return { result: n, changes: n ? { SurveyId: surveyId, InterviewId: interviewId } : null };
  });
  if (changes) publishChangeSync(db, assignmentChange('created', interviewerRow(db, interviewerId, surveyId, interviewId)));
}

/** Interviewer `Controller.DeAssignFromCalls`: removes its call assignments of the survey. */
export function interviewerDeAssignFromCalls(db: Db, interviewerId: number, surveyId: string): void {
  interviewerTarget(db, interviewerId, surveyId);
  const gone = auditedWrite(db, 'DeAssignFromCalls', interviewerAddress(interviewerId), () => {
    const rows = interviewerAssignmentRowsSync(db, interviewerId, surveyId).filter((r) => r.InterviewId !== null);
    db.prepare('DELETE FROM interviewer_call_assignments WHERE interviewer_id = ? AND survey_id = ?').run(interviewerId, surveyId);
    return { result: rows, changes: rows.length ? { SurveyId: surveyId, InterviewIds: rows.map((r) => r.InterviewId) } : null };
  });
  publishChangesSync(db, gone.map((r) => assignmentChange('deleted', r)));
}

/** Interviewer `Controller.CleanAssignments`: removes every survey and call assignment of the interviewer. */
export function interviewerCleanAssignments(db: Db, interviewerId: number): void {
  const gone = auditedWrite(db, 'CleanAssignments', interviewerAddress(interviewerId), () => {
    interviewerTarget(db, interviewerId);
    const rows = interviewerAssignmentRowsSync(db, interviewerId);
    db.prepare('DELETE FROM interviewer_survey_assignments WHERE interviewer_id = ?').run(interviewerId);
    db.prepare('DELETE FROM interviewer_call_assignments WHERE interviewer_id = ?').run(interviewerId);
    const removed = rows.map((r) => ({ SurveyId: r.SurveyId, InterviewId: r.InterviewId }));
    return { result: rows, changes: rows.length ? { Removed: removed } : null };
  });
  publishChangesSync(db, gone.map((r) => assignmentChange('deleted', r)));
}

/** Interviewer `Controller.GetAssignments()`: one row per (SurveyId, AssignmentType). */
export function interviewerAssignments(db: Db, interviewerId: number): SurveyAssignment[] {
  return runSource(db, interviewerAssignmentsSource(db, interviewerId)) as SurveyAssignment[];
}

/** The SQL source of an interviewer's GetAssignments (for the OData query options); 404 for an unknown interviewer. */
export function interviewerAssignmentsSource(db: Db, interviewerId: number): AssignmentSource {
  interviewerTarget(db, interviewerId);
  return { model: interviewerAssignmentsModel, params: [interviewerId, interviewerId, interviewerId, interviewerId] };
}

const groupRow = (groupId: number, surveyId: string, callCenterId: number, interviewId: number | null): AssignmentRecord => ({
  SurveyId: surveyId, ResourceId: groupId, IsGroup: true, CallCenterId: callCenterId, InterviewId: interviewId,
});

/** Group `Controller.AssignOnSurvey`: members in that call centre get an Implicit assignment. */
export function groupAssignOnSurvey(db: Db, groupId: number, surveyId: string, callCenterId: number): void {
  const changes = auditedWrite(db, 'AssignOnSurvey', groupAddress(groupId), () => {
    groupTarget(db, groupId, callCenterId, surveyId);
    const n = db.prepare('INSERT OR IGNORE INTO group_survey_assignments (group_id, survey_id, call_center_id) VALUES (?, ?, ?)').run(groupId, surveyId, callCenterId).changes;
    return { result: n, changes: n ? { SurveyId: surveyId, CallCenterId: callCenterId } : null };
  });
  if (changes) publishChangeSync(db, assignmentChange('created', groupRow(groupId, surveyId, callCenterId, null)));
}

/** Group `Controller.DeAssignFromSurvey`. */
export function groupDeAssignFromSurvey(db: Db, groupId: number, surveyId: string, callCenterId: number): void {
  const changes = auditedWrite(db, 'DeAssignFromSurvey', groupAddress(groupId), () => {
    groupTarget(db, groupId, callCenterId, surveyId);
    const n = db
      .prepare('DELETE FROM group_survey_assignments WHERE group_id = ? AND survey_id = ? AND call_center_id = ?')
      .run(groupId, surveyId, callCenterId).changes;
    return { result: n, changes: n ? { SurveyId: surveyId, CallCenterId: callCenterId } : null };
  });
  if (changes) publishChangeSync(db, assignmentChange('deleted', groupRow(groupId, surveyId, callCenterId, null)));
}

/** Group `Controller.AssignOnCall`. */
export function groupAssignOnCall(db: Db, groupId: number, surveyId: string, interviewId: number, callCenterId: number): void {
  const changes = auditedWrite(db, 'AssignOnCall', groupAddress(groupId), () => {
    assertInterviewId(interviewId);
    groupTarget(db, groupId, callCenterId, surveyId);
    const n = db
      .prepare('INSERT OR IGNORE INTO group_call_assignments (group_id, survey_id, call_center_id, interview_id) VALUES (?, ?, ?, ?)')
      .run(groupId, surveyId, callCenterId, interviewId).changes;
    return { result: n, changes: n ? { SurveyId: surveyId, InterviewId: interviewId, CallCenterId: callCenterId } : null };
  });
  if (changes) publishChangeSync(db, assignmentChange('created', groupRow(groupId, surveyId, callCenterId, interviewId)));
}

/** Group `Controller.DeAssignFromCalls`. */
export function groupDeAssignFromCalls(db: Db, groupId: number, surveyId: string, callCenterId: number): void {
  groupTarget(db, groupId, callCenterId, surveyId);
  const gone = auditedWrite(db, 'DeAssignFromCalls', groupAddress(groupId), () => {
    const ids = db
      .prepare('SELECT interview_id FROM group_call_assignments WHERE group_id = ? AND survey_id = ? AND call_center_id = ?')
      .pluck()
      .all(groupId, surveyId, callCenterId) as number[];
    db.prepare('DELETE FROM group_call_assignments WHERE group_id = ? AND survey_id = ? AND call_center_id = ?').run(groupId, surveyId, callCenterId);
    return { result: ids, changes: ids.length ? { SurveyId: surveyId, CallCenterId: callCenterId, InterviewIds: ids } : null };
  });
  publishChangesSync(db, gone.map((i) => assignmentChange('deleted', groupRow(groupId, surveyId, callCenterId, i))));
}

/** Group `Controller.GetAssignments(callCenterId)`. */
export function groupAssignments(db: Db, groupId: number, callCenterId: number): SurveyAssignment[] {
  return runSource(db, groupAssignmentsSource(db, groupId, callCenterId)) as SurveyAssignment[];
}

/** The SQL source of a group's GetAssignments; 404 for an unknown group or call centre. */
export function groupAssignmentsSource(db: Db, groupId: number, callCenterId: number): AssignmentSource {
  groupTarget(db, groupId, callCenterId);
  return { model: groupAssignmentsModel, params: [groupId, groupId, callCenterId, groupId, callCenterId, callCenterId] };
}

/** Interviewer ids that are direct members of the group in that call centre (`Controller.GetInterviewers`). */
export function groupMemberIds(db: Db, groupId: number, callCenterId: number): number[] {
  groupTarget(db, groupId, callCenterId);
  return db
    .prepare(`SELECT i.id FROM interviewer_groups m JOIN interviewers i ON i.id = m.interviewer_id
      WHERE m.group_id = ? AND i.call_center_id = ? ORDER BY i.id`)
    .pluck()
    .all(groupId, callCenterId) as number[];
}

/** Survey `Controller.GetAssignments(callCenterId)`: groups and interviewers assigned to it or to its calls. */
export function surveyAssignments(db: Db, surveyId: string, callCenterId: number): ResourceAssignment[] {
  const rows = runSource(db, surveyAssignmentsSource(db, surveyId, callCenterId));
  return rows.map((r) => ({ ...r, IsGroup: r.IsGroup === 1 }) as ResourceAssignment);
}

/** The SQL source of a survey's GetAssignments; 404 for an unknown/SoftDeleted survey or unknown call centre. */
export function surveyAssignmentsSource(db: Db, surveyId: string, callCenterId: number): AssignmentSource {
  assertActiveSurvey(db, surveyId);
  assertCallCenter(db, callCenterId);
  return { model: surveyResourcesModel, params: [surveyId, callCenterId, surveyId, surveyId, callCenterId, surveyId, callCenterId] };
}
