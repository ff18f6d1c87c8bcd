/**
 * The assignment read queries as SQL sources (FROM subqueries with bound `?` parameters), so the
 * GetAssignments functions answer through the OData engine with $filter/$orderby/$top/$count applied in SQL.
 * Counts are computed here from the assignment rows on every read, never stored.
 */
import type { Queryable } from '../db/store.ts';
import { selectList, type Row } from '../odata/collection-query.ts';
import type { EntityModel } from '../odata/model.ts';
import type { ODataCall, ODataResult } from '../odata/service.ts';
import { resourceAssignmentModel, surveyAssignmentModel } from './cati-models.ts';

/** A query model plus the values of the `?` in its FROM, in order. */
export interface AssignmentSource {
  model: EntityModel;
  params: unknown[];
}

// Params: interviewer id ×4.
const INTERVIEWER = `(
WITH RECURSIVE eg(id) AS (
  SELECT group_id FROM interviewer_groups WHERE interviewer_id = ?
  UNION SELECT gp.parent_id FROM group_parents gp JOIN eg ON gp.group_id = eg.id),
me AS (SELECT call_center_id AS cc FROM interviewers WHERE id = ?),
assigned_calls AS (
  SELECT survey_id, interview_id FROM interviewer_call_assignments WHERE interviewer_id = ?
  UNION SELECT survey_id, interview_id FROM group_call_assignments
    WHERE group_id IN (SELECT id FROM eg) AND call_center_id = (SELECT cc FROM me)),
counts AS (SELECT survey_id, COUNT(*) AS n FROM assigned_calls GROUP BY survey_id),
kinds AS (
  SELECT survey_id, 'Explicit' AS t FROM interviewer_survey_assignments WHERE interviewer_id = ?
  UNION SELECT survey_id, 'Implicit' FROM group_survey_assignments
    WHERE group_id IN (SELECT id FROM eg) AND call_center_id = (SELECT cc FROM me)
  UNION SELECT survey_id, 'ImplicitToSurveyCalls' FROM counts)
SELECT k.survey_id AS SurveyId, k.t AS AssignmentType, COALESCE(c.n, 0) AS AssignedCallsCount
FROM kinds k JOIN surveys s ON s.id = k.survey_id AND s.state <> 'SoftDeleted'
LEFT JOIN counts c ON c.survey_id = k.survey_id) AS a`;

// Params: group, group, call centre, group, call centre, call centre.
const GROUP = `(
WITH RECURSIVE anc(id) AS (
  SELECT parent_id FROM group_parents WHERE group_id = ?
  UNION SELECT gp.parent_id FROM group_parents gp JOIN anc ON gp.group_id = anc.id),
counts AS (SELECT survey_id, COUNT(*) AS n FROM group_call_assignments WHERE group_id = ? AND call_center_id = ? GROUP BY survey_id),
kinds AS (
  SELECT survey_id, 'Explicit' AS t FROM group_survey_assignments WHERE group_id = ? AND call_center_id = ?
  UNION SELECT survey_id, 'Implicit' FROM group_survey_assignments WHERE group_id IN (SELECT id FROM anc) AND call_center_id = ?
  UNION SELECT survey_id, 'ImplicitToSurveyCalls' FROM counts)
SELECT k.survey_id AS SurveyId, k.t AS AssignmentType, COALESCE(c.n, 0) AS AssignedCallsCount
FROM kinds k JOIN surveys s ON s.id = k.survey_id AND s.state <> 'SoftDeleted'
LEFT JOIN counts c ON c.survey_id = k.survey_id) AS a`;

// Params: survey, call centre, survey, survey, call centre, survey, call centre.
const SURVEY = `(
WITH gcounts AS (SELECT group_id, COUNT(*) AS n FROM group_call_assignments WHERE survey_id = ? AND call_center_id = ? GROUP BY group_id),
icounts AS (SELECT interviewer_id, COUNT(*) AS n FROM interviewer_call_assignments WHERE survey_id = ? GROUP BY interviewer_id),
grps AS (SELECT group_id AS id FROM group_survey_assignments WHERE survey_id = ? AND call_center_id = ? UNION SELECT group_id FROM gcounts),
ivs AS (SELECT interviewer_id AS id FROM interviewer_survey_assignments WHERE survey_id = ? UNION SELECT interviewer_id FROM icounts)
SELECT g.id AS ResourceId, g.name AS Name, 1 AS IsGroup, COALESCE(c.n, 0) AS AssignedCallsCount
  FROM grps JOIN groups g ON g.id = grps.id LEFT JOIN gcounts c ON c.group_id = g.id
UNION ALL
SELECT i.id, i.name, 0, COALESCE(c.n, 0)
  FROM ivs JOIN interviewers i ON i.id = ivs.id AND i.call_center_id = ? LEFT JOIN icounts c ON c.interviewer_id = i.id) AS a`;

// Query models: the declared (keyless) types with a FROM and a unique ordering used for stable paging.
export const interviewerAssignmentsModel: EntityModel = { ...surveyAssignmentModel, key: ['SurveyId', 'AssignmentType'], from: INTERVIEWER };
export const groupAssignmentsModel: EntityModel = { ...surveyAssignmentModel, key: ['SurveyId', 'AssignmentType'], from: GROUP };
export const surveyResourcesModel: EntityModel = { ...resourceAssignmentModel, key: ['IsGroup', 'ResourceId'], from: SURVEY };

/** Runs a source without query options, in its key order (service use and unit tests). */
export function runSource(db: Queryable, source: AssignmentSource): Promise<Row[]> {
  const order = source.model.key.join(', ');
  return db.all<Row>(`SELECT ${selectList(source.model)} FROM ${source.model.from} ORDER BY ${order}`, source.params);
}

/** Answers a GetAssignments call through the engine; the source's `?` are those of the model's FROM subquery. */
export function fromSource(call: ODataCall, source: AssignmentSource): Promise<ODataResult> {
  return call.query(source.model, { scope: { fromParams: source.params } });
}
