/**
 * `/callhistorywithvariables` (seed §4.3, docs/cati-api.md#callhistorywithvariables): calls, and with their flags breaks and
 * login/logout events, as one UNION ALL subquery ordered by time. The subquery takes the request
 * parameters as bound `?` values; the OData engine filters, sorts and pages on top of it in SQL.
 * NumberInOrder is the 0-based row number in time order after the parameters' filtering.
 */
import { perDialect, type Dialect } from '../db/dialect.ts';
import type { Queryable } from '../db/store.ts';
import type { Row } from '../odata/collection-query.ts';
import { badRequest } from '../errors.ts';
import type { ExportColumns } from '../odata/export-stream.ts';
import type { EntityModel, PropertyDef } from '../odata/model.ts';
import { SURVEY_ID } from './body-fields.ts';
import { parseIsoTime } from '../lib/time.ts';

/** The bounds of an absent `startTime`/`endTime` (docs/cati-api.md#callhistorywithvariables: no default window; ±8.64e15 ms is the JS Date range). */
const MAX_TIME = 8.64e15;
const MIN_TIME = -8.64e15;

/** The surveys filter over a JSON array parameter, null = every survey (both bound to the same value). */
export const surveysIn = (d: Dialect, column: string) => `(CAST(? AS TEXT) IS NULL OR ${column} IN ${d.jsonValues('text')})`;

/** Which time bounds a request gives: an absent one is left out of the SQL (not bound to ±infinity), so a read of all history is a plain scan the store can move off the event loop (db/large-scans.ts). */
export interface TimeBounds {
  start: boolean;
  end: boolean;
}

const between = (column: string, b: TimeBounds) => [b.start ? `${column} >= ?` : '', b.end ? `${column} < ?` : ''].filter(Boolean).map((c) => ` AND ${c}`).join('');

const subquery = (d: Dialect, b: TimeBounds) => `(
  SELECT ROW_NUMBER() OVER (ORDER BY e.time, e.ord, e.id) - 1 AS number_in_order, e.*, s.name AS survey_name, i.name AS interviewer_name
  FROM (
    SELECT 'Call' AS event_type, 0 AS ord, c.id, c.time, c.survey_id, c.interview_id, c.interviewer_id, c.telephone_number,
      c.extended_status, c.duration, c.waiting_time, c.call_center_id
    FROM calls c WHERE ${surveysIn(d, 'c.survey_id')}${between('c.time', b)}
    UNION ALL
    SELECT 'Break', 1, b.id, b.time, b.survey_id, NULL, b.interviewer_id, NULL, NULL, b.duration, NULL, b.call_center_id
    FROM breaks b WHERE ? = 1 AND ${surveysIn(d, 'b.survey_id')}${between('b.time', b)}
    UNION ALL
    SELECT 'Login', 2, x.id, x.login_time, NULL, NULL, x.interviewer_id, NULL, NULL, NULL, NULL, x.call_center_id
    FROM sessions x WHERE ? = 1${between('x.login_time', b)}
    UNION ALL
    SELECT 'Logout', 3, x.id, x.logout_time, NULL, NULL, x.interviewer_id, NULL, NULL, (x.logout_time - x.login_time) / 1000, NULL, x.call_center_id
    FROM sessions x WHERE ? = 1 AND x.logout_time IS NOT NULL${between('x.logout_time', b)}
  ) e
  LEFT JOIN surveys s ON s.id = e.survey_id
  LEFT JOIN interviewers i ON i.id = e.interviewer_id
) AS h`;

const p = (name: string, column: string, type: PropertyDef['type'], extra: Partial<PropertyDef> = {}): PropertyDef => ({
  name, column: `h.${column}`, type, nullable: true, ...extra,
});

const models = perDialect(() => new Map<string, EntityModel>());

/**
 * The keyless query type for the store's dialect and the request's time bounds (default: both given; one
 * model per dialect and bounds); NumberInOrder serves as its key for stable paging.
 */
export function callHistoryWithVariablesModel(d: Dialect, bounds: TimeBounds = { start: true, end: true }): EntityModel {
  const made = models(d);
  const key = `${bounds.start}|${bounds.end}`;
  let model = made.get(key);
  if (!model) made.set(key, (model = { ...shape, from: subquery(d, bounds) }));
  return model;
}

const shape: EntityModel = {
  typeName: 'CallHistoryWithVariables',
  setName: 'callhistorywithvariables',
  key: ['NumberInOrder'],
  properties: [
    p('NumberInOrder', 'number_in_order', 'Edm.Int64', { nullable: false }),
    p('EventType', 'event_type', 'Edm.String', { nullable: false, enumName: 'EventType', enumValues: ['Call', 'Break', 'Login', 'Logout'] }),
    p('Id', 'id', 'Edm.Int64'),
    p('Time', 'time', 'Edm.DateTimeOffset'),
    p('SurveyId', 'survey_id', 'Edm.String'),
    p('InterviewId', 'interview_id', 'Edm.Int32'),
    p('InterviewerId', 'interviewer_id', 'Edm.Int32'),
    p('TelephoneNumber', 'telephone_number', 'Edm.String'),
    p('ExtendedStatus', 'extended_status', 'Edm.Int32'),
    p('Duration', 'duration', 'Edm.Int32'),
    p('WaitingTime', 'waiting_time', 'Edm.Int32'),
    p('CallCenterId', 'call_center_id', 'Edm.Int32'),
    p('SurveyName', 'survey_name', 'Edm.String'),
    p('InterviewerName', 'interviewer_name', 'Edm.String'),
    { name: 'Variables', type: 'Edm.String', collection: true, virtual: true, complexType: 'VariableValue' },
  ],
};

export interface HistoryWithVariablesRequest {
  /** Bound, in order, to the `?` of the model's `from`. */
  fromParams: unknown[];
  /** The bounds given (docs/cati-api.md#callhistorywithvariables: an absent one is no bound at all); the model to use for them. */
  bounds: TimeBounds;
  /** The window (start inclusive, end exclusive, epoch ms; ±8.64e15 when not given), the surveys as a JSON array (null = all), the flags. */
  start: number;
  end: number;
  surveysJson: string | null;
  breaks: boolean;
  logins: boolean;
  /** Variable names as requested (echoed in each row). */
  variables: string[];
}

function flag(params: Record<string, string>, name: string): boolean {
  const v = params[name];
  if (v === undefined || v === '') return false;
  if (/^true$/i.test(v)) return true;
  if (/^false$/i.test(v)) return false;
  throw badRequest(`${name} must be true or false, not '${v}'`);
}

function time(params: Record<string, string>, name: string): number | undefined {
  const v = params[name];
  if (v === undefined || v === '') return undefined;
  const ms = parseIsoTime(v);
  if (ms === undefined) throw badRequest(`${name} must be an ISO 8601 date-time such as 2026-11-02T09:15:00Z, not '${v}'`);
  return ms;
}

const splitList = (v: string | undefined) => (v ?? '').split(/[,;]/).map((s) => s.trim()).filter(Boolean);

/**
 * Validates the seed §4.3 parameters: surveyIds (unknown ones skipped when mixed with known ones; all
 * unknown → 400), variables (each available as CATI filter in at least one requested survey, else 400
 * naming it), startTime inclusive / endTime exclusive (docs/cati-api.md#callhistorywithvariables: without startTime no lower bound,
 * without endTime no upper bound), the two boolean flags.
 */
export async function readHistoryWithVariablesRequest(db: Queryable, params: Record<string, string>): Promise<HistoryWithVariablesRequest> {
  const known = new Set(['startTime', 'endTime', 'includeBreakTimes', 'includeLoginLogoutInfo', 'surveyIds', 'variables']);
  for (const name of Object.keys(params)) {
    if (!known.has(name)) {
      const hint = [...known].find((k) => k.toLowerCase() === name.toLowerCase());
      throw badRequest(`Unknown parameter '${name}'${hint ? ` (did you mean '${hint}'?)` : ` (known: ${[...known].join(', ')})`}`);
    }
  }
  const givenStart = time(params, 'startTime');
  const givenEnd = time(params, 'endTime');
  const bounds: TimeBounds = { start: givenStart !== undefined, end: givenEnd !== undefined };
  const end = givenEnd ?? MAX_TIME;
  const start = givenStart ?? MIN_TIME;
  const breaks = flag(params, 'includeBreakTimes');
  const logins = flag(params, 'includeLoginLogoutInfo');

  let surveys: string[] | null = null;
  const requested = splitList(params.surveyIds);
  if (params.surveyIds !== undefined) {
    if (requested.length === 0) throw badRequest('surveyIds is empty; give survey ids such as p12345678 separated by , or ;');
    const known = new Set(
      await db.column<string>(`SELECT id FROM surveys WHERE id IN ${db.dialect.jsonValues('text')} AND state <> 'SoftDeleted'`, [
        JSON.stringify(requested.filter((id) => SURVEY_ID.test(id))),
      ]),
    );
    surveys = [...new Set(requested.filter((id) => known.has(id)))];
    if (surveys.length === 0) throw badRequest(`surveyIds: none of ${requested.join(', ')} is a known survey`);
  }

  const variables = [...new Set(splitList(params.variables))];
  const available = `SELECT 1 FROM survey_variables WHERE ${db.dialect.equalsIgnoreCase('name', '?')} AND available_as_cati_filter = 1
    AND ${surveysIn(db.dialect, 'survey_id')} LIMIT 1`;
  const surveysJson = surveys ? JSON.stringify(surveys) : null;
  for (const v of variables) {
    if ((await db.value(available, [v, surveysJson, surveysJson])) === undefined) {
      throw badRequest(`Variable '${v}' is not available as CATI filter in ${surveys ? `the surveys ${surveys.join(', ')}` : 'any survey'}`);
    }
  }
  const window = [...(bounds.start ? [start] : []), ...(bounds.end ? [end] : [])];
  return {
    fromParams: [
      surveysJson, surveysJson, ...window,
      breaks ? 1 : 0, surveysJson, surveysJson, ...window,
      logins ? 1 : 0, ...window,
      logins ? 1 : 0, ...window,
    ],
    bounds, start, end, surveysJson, breaks, logins,
    variables,
  };
}

/** ASCII-only case folding, as SQLite's NOCASE and lower() fold. */
const fold = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/**
 * Adds `Variables: [{Name, Value}]` to each row of a page: the interview's answers, null where the survey
 * lacks one as CATI filter. Two queries per page, never one per row.
 */
export function variablesAttacher(db: Queryable, variables: string[]): (rows: Row[]) => Promise<Row[]> {
  const folded = variables.map(fold);
  const d = db.dialect;
  return async (rows) => {
    const interviews = rows.filter((r) => r.SurveyId !== null && r.InterviewId !== null).map((r) => [r.SurveyId, r.InterviewId]);
    const surveys = [...new Set(interviews.map(([s]) => s))];
    const filterVars = new Set(
      await db.column<string>(`SELECT survey_id || '|' || lower(name) FROM survey_variables
        WHERE available_as_cati_filter = 1 AND survey_id IN ${d.jsonValues('text')}`, [JSON.stringify(surveys)]),
    );
    const values = new Map<string, string | null>();
    if (variables.length > 0 && interviews.length > 0) {
      const found = await db.all<{ k: string; value: string | null }>(
        `SELECT v.survey_id || '|' || v.interview_id || '|' || lower(v.name) AS k, v.value
        FROM (SELECT DISTINCT s, i FROM ${d.jsonRows([['s', 'text'], ['i', 'int']])} AS j) w
        JOIN interview_variables v ON v.survey_id = w.s AND v.interview_id = w.i
        WHERE lower(v.name) IN ${d.jsonValues('text')} ORDER BY v.survey_id, v.interview_id, v.name`,
        [JSON.stringify(interviews), JSON.stringify(folded)],
      );
      for (const f of found) if (!values.has(f.k)) values.set(f.k, f.value);
    }
    for (const row of rows) {
      const survey = row.SurveyId as string | null;
      const interview = row.InterviewId as number | null;
      row.Variables = variables.map((name, n) => {
        if (survey === null || interview === null || !filterVars.has(`${survey}|${folded[n]}`)) return { Name: name, Value: null };
        return { Name: name, Value: values.get(`${survey}|${interview}|${folded[n]}`) ?? null };
      });
    }
    return rows;
  };
}

/**
 * The variables as export columns (docs/cati-api.md#exports), one per requested variable under its requested name:
 * a correlated subquery per column, so exports stream them from SQL. Same rule as `variablesAttacher`:
 * null unless the row's survey offers the variable as CATI filter. Absent when the rows no longer carry
 * SurveyId and InterviewId (e.g. aggregated by `$apply`).
 */
export function variableExportColumns(d: Dialect, variables: string[]): ExportColumns {
  return {
    names: variables,
    sql(column) {
      const survey = column('SurveyId');
      const interview = column('InterviewId');
      if (!survey || !interview) return undefined;
      return variables.map((name) => ({
        sql: `(SELECT iv.value FROM interview_variables iv WHERE iv.survey_id = ${survey} AND iv.interview_id = ${interview} AND ${d.equalsIgnoreCase('iv.name', '?')}
          AND EXISTS (SELECT 1 FROM survey_variables sv WHERE sv.survey_id = ${survey} AND ${d.equalsIgnoreCase('sv.name', '?')} AND sv.available_as_cati_filter = 1))`,
        params: [name, name],
      }));
    },
  };
}
