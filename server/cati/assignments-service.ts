import type { Db } from '../db/open.ts';
import { badRequest, notFound } from '../errors.ts';
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

/** Interviewer `Controller.AssignOnSurvey`: an explicit assignment (idempotent). */
export function interviewerAssignOnSurvey(db: Db, interviewerId: number, surveyId: string): void {
  interviewerTarget(db, interviewerId, surveyId);
  db.prepare('INSERT OR IGNORE INTO interviewer_survey_assignments (interviewer_id, survey_id) VALUES (?, ?)').run(interviewerId, surveyId);
}

/** Interviewer `Controller.DeAssignFromSurvey`: removes only the explicit assignment. */
export function interviewerDeAssignFromSurvey(db: Db, interviewerId: number, surveyId: string): void {
  interviewerTarget(db, interviewerId, surveyId);
  db.prepare('DELETE FROM interviewer_survey_assignments WHERE interviewer_id = ? AND survey_id = ?').run(interviewerId, surveyId);
}

/** Interviewer `Controller.AssignOnCall`: assigns one interview of the survey. */
export function interviewerAssignOnCall(db: Db, interviewerId: number, surveyId: string, interviewId: number): void {
  assertInterviewId(interviewId);
  interviewerTarget(db, interviewerId, surveyId);
  db.prepare('INSERT OR IGNORE INTO interviewer_call_assignments (interviewer_id, survey_id, interview_id) VALUES (?, ?, ?)').run(interviewerId, surveyId, interviewId);
}

/** Interviewer `Controller.DeAssignFromCalls`: removes its call assignments of the survey. */
export function interviewerDeAssignFromCalls(db: Db, interviewerId: number, surveyId: string): void {
  interviewerTarget(db, interviewerId, surveyId);
  db.prepare('DELETE FROM interviewer_call_assignments WHERE interviewer_id = ? AND survey_id = ?').run(interviewerId, surveyId);
}

/** Interviewer `Controller.CleanAssignments`: removes every survey and call assignment of the interviewer. */
export function interviewerCleanAssignments(db: Db, interviewerId: number): void {
  db.transaction(() => {
    interviewerTarget(db, interviewerId);
    db.prepare('DELETE FROM interviewer_survey_assignments WHERE interviewer_id = ?').run(interviewerId);
    db.prepare('DELETE FROM interviewer_call_assignments WHERE interviewer_id = ?').run(interviewerId);
  }).immediate();
}

const INTERVIEWER_ASSIGNMENTS = `
WITH RECURSIVE eg(id) AS (
  SELECT group_id FROM interviewer_groups WHERE interviewer_id = @i
  UNION SELECT gp.parent_id FROM group_parents gp JOIN eg ON gp.group_id = eg.id),
me AS (SELECT call_center_id AS cc FROM interviewers WHERE id = @i),
assigned_calls AS (
  SELECT survey_id, interview_id FROM interviewer_call_assignments WHERE interviewer_id = @i
  UNION SELECT survey_id, interview_id FROM group_call_assignments
    WHERE group_id IN (SELECT id FROM eg) AND call_center_id = (SELECT cc FROM me)),
counts AS (SELECT survey_id, COUNT(*) AS n FROM assigned_calls GROUP BY survey_id),
kinds AS (
  SELECT survey_id, 'Explicit' AS t, 1 AS o FROM interviewer_survey_assignments WHERE interviewer_id = @i
  UNION SELECT survey_id, 'Implicit', 2 FROM group_survey_assignments
    WHERE group_id IN (SELECT id FROM eg) AND call_center_id = (SELECT cc FROM me)
  UNION SELECT survey_id, 'ImplicitToSurveyCalls', 3 FROM counts)
SELECT k.survey_id AS SurveyId, k.t AS AssignmentType, COALESCE(c.n, 0) AS AssignedCallsCount
FROM kinds k JOIN surveys s ON s.id = k.survey_id AND s.state <> 'SoftDeleted'
LEFT JOIN counts c ON c.survey_id = k.survey_id
ORDER BY k.survey_id, k.o`;

/** Interviewer `Controller.GetAssignments()`: one row per (SurveyId, AssignmentType). */
export function interviewerAssignments(db: Db, interviewerId: number): SurveyAssignment[] {
  interviewerTarget(db, interviewerId);
  return db.prepare(INTERVIEWER_ASSIGNMENTS).all({ i: interviewerId }) as SurveyAssignment[];
}

/** Group `Controller.AssignOnSurvey`: members in that call centre get an Implicit assignment. */
export function groupAssignOnSurvey(db: Db, groupId: number, surveyId: string, callCenterId: number): void {
  groupTarget(db, groupId, callCenterId, surveyId);
  db.prepare('INSERT OR IGNORE INTO group_survey_assignments (group_id, survey_id, call_center_id) VALUES (?, ?, ?)').run(groupId, surveyId, callCenterId);
}

/** Group `Controller.DeAssignFromSurvey`. */
export function groupDeAssignFromSurvey(db: Db, groupId: number, surveyId: string, callCenterId: number): void {
  groupTarget(db, groupId, callCenterId, surveyId);
  db.prepare('DELETE FROM group_survey_assignments WHERE group_id = ? AND survey_id = ? AND call_center_id = ?').run(groupId, surveyId, callCenterId);
}

/** Group `Controller.AssignOnCall`. */
export function groupAssignOnCall(db: Db, groupId: number, surveyId: string, interviewId: number, callCenterId: number): void {
  assertInterviewId(interviewId);
  groupTarget(db, groupId, callCenterId, surveyId);
  db.prepare('INSERT OR IGNORE INTO group_call_assignments (group_id, survey_id, call_center_id, interview_id) VALUES (?, ?, ?, ?)').run(
    groupId, surveyId, callCenterId, interviewId,
  );
}

/** Group `Controller.DeAssignFromCalls`. */
export function groupDeAssignFromCalls(db: Db, groupId: number, surveyId: string, callCenterId: number): void {
  groupTarget(db, groupId, callCenterId, surveyId);
  db.prepare('DELETE FROM group_call_assignments WHERE group_id = ? AND survey_id = ? AND call_center_id = ?').run(groupId, surveyId, callCenterId);
}

const GROUP_ASSIGNMENTS = `
WITH RECURSIVE anc(id) AS (
  SELECT parent_id FROM group_parents WHERE group_id = @g
  UNION SELECT gp.parent_id FROM group_parents gp JOIN anc ON gp.group_id = anc.id),
counts AS (SELECT survey_id, COUNT(*) AS n FROM group_call_assignments WHERE group_id = @g AND call_center_id = @cc GROUP BY survey_id),
kinds AS (
  SELECT survey_id, 'Explicit' AS t, 1 AS o FROM group_survey_assignments WHERE group_id = @g AND call_center_id = @cc
  UNION SELECT survey_id, 'Implicit', 2 FROM group_survey_assignments WHERE group_id IN (SELECT id FROM anc) AND call_center_id = @cc
  UNION SELECT survey_id, 'ImplicitToSurveyCalls', 3 FROM counts)
SELECT k.survey_id AS SurveyId, k.t AS AssignmentType, COALESCE(c.n, 0) AS AssignedCallsCount
FROM kinds k JOIN surveys s ON s.id = k.survey_id AND s.state <> 'SoftDeleted'
LEFT JOIN counts c ON c.survey_id = k.survey_id
ORDER BY k.survey_id, k.o`;

/** Group `Controller.GetAssignments(callCenterId)`. */
export function groupAssignments(db: Db, groupId: number, callCenterId: number): SurveyAssignment[] {
  groupTarget(db, groupId, callCenterId);
  return db.prepare(GROUP_ASSIGNMENTS).all({ g: groupId, cc: callCenterId }) as SurveyAssignment[];
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

const SURVEY_RESOURCES = `
WITH gcounts AS (SELECT group_id, COUNT(*) AS n FROM group_call_assignments WHERE survey_id = @s AND call_center_id = @cc GROUP BY group_id),
icounts AS (SELECT interviewer_id, COUNT(*) AS n FROM interviewer_call_assignments WHERE survey_id = @s GROUP BY interviewer_id),
grps AS (SELECT group_id AS id FROM group_survey_assignments WHERE survey_id = @s AND call_center_id = @cc UNION SELECT group_id FROM gcounts),
ivs AS (SELECT interviewer_id AS id FROM interviewer_survey_assignments WHERE survey_id = @s UNION SELECT interviewer_id FROM icounts)
SELECT g.id AS ResourceId, g.name AS Name, 1 AS IsGroup, COALESCE(c.n, 0) AS AssignedCallsCount
  FROM grps JOIN groups g ON g.id = grps.id LEFT JOIN gcounts c ON c.group_id = g.id
UNION ALL
SELECT i.id, i.name, 0, COALESCE(c.n, 0)
  FROM ivs JOIN interviewers i ON i.id = ivs.id AND i.call_center_id = @cc LEFT JOIN icounts c ON c.interviewer_id = i.id
ORDER BY 3 DESC, 1`;

/** Survey `Controller.GetAssignments(callCenterId)`: groups and interviewers assigned to it or to its calls. */
export function surveyAssignments(db: Db, surveyId: string, callCenterId: number): ResourceAssignment[] {
  assertActiveSurvey(db, surveyId);
  assertCallCenter(db, callCenterId);
  const rows = db.prepare(SURVEY_RESOURCES).all({ s: surveyId, cc: callCenterId }) as (Omit<ResourceAssignment, 'IsGroup'> & { IsGroup: number })[];
  return rows.map((r) => ({ ...r, IsGroup: r.IsGroup === 1 }));
}
