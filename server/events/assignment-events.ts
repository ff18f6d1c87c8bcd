/**
 * Assignment events (CONTRACT §9): `assignment` with action created/deleted and data carrying SurveyId,
 * ResourceId, IsGroup, CallCenterId (plus InterviewId for a single call's assignment, else null).
 */
import type { Db } from '../db/open.ts';
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

/** Every survey and call assignment row of an interviewer (call centre: the interviewer's). */
export function interviewerAssignmentRows(db: Db, interviewerId: number, surveyId?: string): AssignmentRecord[] {
  const rows = db
    .prepare(`SELECT a.survey_id AS SurveyId, i.call_center_id AS CallCenterId, NULL AS InterviewId FROM interviewer_survey_assignments a
        JOIN interviewers i ON i.id = a.interviewer_id WHERE a.interviewer_id = ? AND (? IS NULL OR a.survey_id = ?)
      UNION ALL
      SELECT a.survey_id, i.call_center_id, a.interview_id FROM interviewer_call_assignments a
        JOIN interviewers i ON i.id = a.interviewer_id WHERE a.interviewer_id = ? AND (? IS NULL OR a.survey_id = ?)`)
    .all(interviewerId, surveyId ?? null, surveyId ?? null, interviewerId, surveyId ?? null, surveyId ?? null) as Omit<AssignmentRecord, 'ResourceId' | 'IsGroup'>[];
  return rows.map((r) => ({ SurveyId: r.SurveyId, ResourceId: interviewerId, IsGroup: false, CallCenterId: r.CallCenterId, InterviewId: r.InterviewId }));
}

/** Every survey and call assignment row of a group. */
export function groupAssignmentRows(db: Db, groupId: number): AssignmentRecord[] {
  const rows = db
    .prepare(`SELECT survey_id AS SurveyId, call_center_id AS CallCenterId, NULL AS InterviewId FROM group_survey_assignments WHERE group_id = ?
      UNION ALL SELECT survey_id, call_center_id, interview_id FROM group_call_assignments WHERE group_id = ?`)
    .all(groupId, groupId) as Omit<AssignmentRecord, 'ResourceId' | 'IsGroup'>[];
  return rows.map((r) => ({ SurveyId: r.SurveyId, ResourceId: groupId, IsGroup: true, CallCenterId: r.CallCenterId, InterviewId: r.InterviewId }));
}
