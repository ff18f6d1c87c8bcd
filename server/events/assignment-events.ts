/**
 * Assignment events (CONTRACT §9): `assignment` with action created/deleted and data carrying SurveyId,
 * ResourceId, IsGroup, CallCenterId (plus InterviewId for a single call's assignment, else null).
 */
import type { Db } from '../db/open.ts';
import type { Queryable } from '../db/store.ts';
import type { Change } from './publisher.ts';

/** One assignment row as the events describe it. */
export interface AssignmentRecord {
  SurveyId: string;
  ResourceId: number;
  IsGroup: boolean;
  CallCenterId: number;
  /** The interview of a call assignment (AssignOnCall); null for a survey assignment. */
  InterviewId: number | null;
}

/** The change announcing that an assignment row was created or deleted; its id names the row. */
export function assignmentChange(action: 'created' | 'deleted', a: AssignmentRecord): Change {
  const id = `${a.IsGroup ? 'group' : 'interviewer'}:${a.ResourceId}:${a.SurveyId}:${a.CallCenterId}${a.InterviewId === null ? '' : `:${a.InterviewId}`}`;
  return { type: 'assignment', action, id, record: { ...a } };
}

type AssignmentRow = Omit<AssignmentRecord, 'ResourceId' | 'IsGroup'>;

const INTERVIEWER_ROWS = `SELECT a.survey_id AS "SurveyId", i.call_center_id AS "CallCenterId", NULL AS "InterviewId" FROM interviewer_survey_assignments a
    JOIN interviewers i ON i.id = a.interviewer_id WHERE a.interviewer_id = ? AND (CAST(? AS TEXT) IS NULL OR a.survey_id = ?)
  UNION ALL
  SELECT a.survey_id, i.call_center_id, a.interview_id FROM interviewer_call_assignments a
    JOIN interviewers i ON i.id = a.interviewer_id WHERE a.interviewer_id = ? AND (CAST(? AS TEXT) IS NULL OR a.survey_id = ?)`;

const GROUP_ROWS = `SELECT survey_id AS "SurveyId", call_center_id AS "CallCenterId", NULL AS "InterviewId" FROM group_survey_assignments WHERE group_id = ?
  UNION ALL SELECT survey_id, call_center_id, interview_id FROM group_call_assignments WHERE group_id = ?`;

const interviewerParams = (interviewerId: number, surveyId?: string) => [interviewerId, surveyId ?? null, surveyId ?? null, interviewerId, surveyId ?? null, surveyId ?? null];

const ofInterviewer = (interviewerId: number) => (r: AssignmentRow): AssignmentRecord => ({
  SurveyId: r.SurveyId,
  ResourceId: interviewerId,
  IsGroup: false,
  CallCenterId: r.CallCenterId,
  InterviewId: r.InterviewId,
});

const ofGroup = (groupId: number) => (r: AssignmentRow): AssignmentRecord => ({
  SurveyId: r.SurveyId,
  ResourceId: groupId,
  IsGroup: true,
  CallCenterId: r.CallCenterId,
  InterviewId: r.InterviewId,
});

/** Every survey and call assignment row of an interviewer (call centre: the interviewer's). */
export async function interviewerAssignmentRows(q: Queryable, interviewerId: number, surveyId?: string): Promise<AssignmentRecord[]> {
  return (await q.all<AssignmentRow>(INTERVIEWER_ROWS, interviewerParams(interviewerId, surveyId))).map(ofInterviewer(interviewerId));
}

/** Every survey and call assignment row of a group. */
export async function groupAssignmentRows(q: Queryable, groupId: number): Promise<AssignmentRecord[]> {
  return (await q.all<AssignmentRow>(GROUP_ROWS, [groupId, groupId])).map(ofGroup(groupId));
}

/** The synchronous interviewerAssignmentRows of modules not yet on the Store (removed when the last one moves). */
export function interviewerAssignmentRowsSync(db: Db, interviewerId: number, surveyId?: string): AssignmentRecord[] {
  return (db.prepare(INTERVIEWER_ROWS).all(...interviewerParams(interviewerId, surveyId)) as AssignmentRow[]).map(ofInterviewer(interviewerId));
}

/** The synchronous groupAssignmentRows of modules not yet on the Store (removed when the last one moves). */
export function groupAssignmentRowsSync(db: Db, groupId: number): AssignmentRecord[] {
  return (db.prepare(GROUP_ROWS).all(groupId, groupId) as AssignmentRow[]).map(ofGroup(groupId));
}
