/**
 * Assignment events (docs/events.md#events): `assignment` with action created/deleted and data carrying SurveyId,
 * ResourceId, IsGroup, CallCenterId (plus InterviewId for a single call's assignment, else null).
 */
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

/** Every survey and call assignment row of an interviewer (call centre: the interviewer's). */
export async function interviewerAssignmentRows(db: Queryable, interviewerId: number, surveyId?: string): Promise<AssignmentRecord[]> {
  const survey = surveyId === undefined ? '' : ' AND a.survey_id = ?';
  const params = surveyId === undefined ? [interviewerId, interviewerId] : [interviewerId, surveyId, interviewerId, surveyId];
  const rows = await db.all<Omit<AssignmentRecord, 'ResourceId' | 'IsGroup'>>(
    `SELECT a.survey_id AS "SurveyId", i.call_center_id AS "CallCenterId", NULL AS "InterviewId" FROM interviewer_survey_assignments a
        JOIN interviewers i ON i.id = a.interviewer_id WHERE a.interviewer_id = ?${survey}
      UNION ALL
      SELECT a.survey_id, i.call_center_id, a.interview_id FROM interviewer_call_assignments a
        JOIN interviewers i ON i.id = a.interviewer_id WHERE a.interviewer_id = ?${survey}`,
    params,
  );
  return rows.map((r) => ({ SurveyId: r.SurveyId, ResourceId: interviewerId, IsGroup: false, CallCenterId: r.CallCenterId, InterviewId: r.InterviewId }));
}

/** Every survey and call assignment row of a group. */
export async function groupAssignmentRows(db: Queryable, groupId: number): Promise<AssignmentRecord[]> {
  const rows = await db.all<Omit<AssignmentRecord, 'ResourceId' | 'IsGroup'>>(
    `SELECT survey_id AS "SurveyId", call_center_id AS "CallCenterId", NULL AS "InterviewId" FROM group_survey_assignments WHERE group_id = ?
      UNION ALL SELECT survey_id, call_center_id, interview_id FROM group_call_assignments WHERE group_id = ?`,
    [groupId, groupId],
  );
  return rows.map((r) => ({ SurveyId: r.SurveyId, ResourceId: groupId, IsGroup: true, CallCenterId: r.CallCenterId, InterviewId: r.InterviewId }));
}
