import type { Db } from '../db/open.ts';
import { badRequest, notFound } from '../errors.ts';
import { bodyObject, optBool, optInt, optString, rejectUnknown, reqString, SURVEY_ID } from './body-fields.ts';
import { checkVersion } from './etag-check.ts';
import { requireTime } from './time.ts';

/** History ingest batch limit (CONTRACT §7). */
export const MAX_INGEST_BATCH = 10000;

export type HistoryKind = 'callhistory' | 'breakhistory' | 'interviewersessionhistory';

type Params = (string | number | null)[];

interface RecordSpec {
  fields: readonly string[];
  insert: string;
  /** Validates one record; returns the insert parameters and the references to check. */
  read(r: Record<string, unknown>, pre: string): { params: Params; survey: string | null; interviewer: number | null; callCenter: number; variables?: [string, string | null][]; interviewId?: number | null };
}

const INT_MAX = 2147483647;
const NON_NEG = { min: 0, max: INT_MAX };

function readSurvey(r: Record<string, unknown>, pre: string, required: boolean): string | null {
  const s = optString(r, 'SurveyId', { nullable: !required, prefix: pre });
  if (s === undefined || s === null) {
    if (required) throw badRequest(`${pre}SurveyId is required`);
    return null;
  }
  if (!SURVEY_ID.test(s)) throw badRequest(`${pre}SurveyId '${s}' must be 'p' followed by digits`);
  return s;
}

function readVariables(r: Record<string, unknown>, pre: string): [string, string | null][] | undefined {
  const v = r.Variables;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw badRequest(`${pre}Variables must be an object {"Name": "Value", ...}`);
  return Object.entries(v as Record<string, unknown>).map(([name, value]) => {
    if (name === '' || name.length > 255) throw badRequest(`${pre}Variables: a variable name must be 1 to 255 characters`);
    if (value !== null && typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw badRequest(`${pre}Variables.${name} must be a string, number, boolean or null`);
    }
    return [name, value === null ? null : String(value)];
  });
}

const SPECS: Record<HistoryKind, RecordSpec> = {
  callhistory: {
    fields: ['Time', 'SurveyId', 'InterviewId', 'InterviewerId', 'TelephoneNumber', 'ExtendedStatus', 'Duration', 'WaitingTime', 'CallCenterId', 'Variables'],
    insert: `INSERT INTO calls (time, survey_id, interview_id, interviewer_id, telephone_number, extended_status, duration, waiting_time, call_center_id)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    read(r, pre) {
      const time = requireTime(r.Time, `${pre}Time`);
      const survey = readSurvey(r, pre, true);
      const interviewId = optInt(r, 'InterviewId', { ...NON_NEG, nullable: true, prefix: pre }) ?? null;
      const interviewer = optInt(r, 'InterviewerId', { min: 1, nullable: true, prefix: pre }) ?? null;
      const phone = reqString(r, 'TelephoneNumber', { max: 64, prefix: pre });
      const status = optInt(r, 'ExtendedStatus', { nullable: true, prefix: pre }) ?? null;
      const duration = optInt(r, 'Duration', { ...NON_NEG, prefix: pre }) ?? 0;
      const waiting = optInt(r, 'WaitingTime', { ...NON_NEG, prefix: pre }) ?? 0;
      const callCenter = optInt(r, 'CallCenterId', { min: 1, prefix: pre }) ?? 1;
      const variables = readVariables(r, pre);
      if (variables && interviewId === null) throw badRequest(`${pre}Variables need an InterviewId (answers are stored per survey and interview)`);
      return { params: [time, survey, interviewId, interviewer, phone, status, duration, waiting, callCenter], survey, interviewer, callCenter, variables, interviewId };
    },
  },
  breakhistory: {
    fields: ['Time', 'SurveyId', 'Duration', 'InterviewerId', 'CallCenterId', 'BreakTypeId', 'BreakTypeName', 'IsPaid'],
    insert: `INSERT INTO breaks (time, survey_id, duration, interviewer_id, call_center_id, break_type_id, break_type_name, is_paid)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    read(r, pre) {
      const time = requireTime(r.Time, `${pre}Time`);
      const survey = readSurvey(r, pre, false);
      const duration = optInt(r, 'Duration', { ...NON_NEG, nullable: true, prefix: pre }) ?? null;
      const interviewer = optInt(r, 'InterviewerId', { min: 1, prefix: pre });
      if (interviewer === undefined || interviewer === null) throw badRequest(`${pre}InterviewerId is required`);
      const callCenter = optInt(r, 'CallCenterId', { min: 1, prefix: pre }) ?? 1;
      const typeId = optInt(r, 'BreakTypeId', { ...NON_NEG, prefix: pre });
      if (typeId === undefined || typeId === null) throw badRequest(`${pre}BreakTypeId is required`);
      const typeName = reqString(r, 'BreakTypeName', { max: 255, prefix: pre });
      const paid = optBool(r, 'IsPaid', { nullable: true, prefix: pre });
      const isPaid = paid === undefined || paid === null ? null : paid ? 1 : 0;
      return { params: [time, survey, duration, interviewer, callCenter, typeId, typeName, isPaid], survey, interviewer, callCenter };
    },
  },
  interviewersessionhistory: {
    fields: ['CallCenterId', 'InterviewerId', 'LoginTime', 'LogoutTime'],
    insert: 'INSERT INTO sessions (call_center_id, interviewer_id, login_time, logout_time) VALUES (?, ?, ?, ?)',
    read(r, pre) {
      const callCenter = optInt(r, 'CallCenterId', { min: 1, prefix: pre }) ?? 1;
      const interviewer = optInt(r, 'InterviewerId', { min: 1, prefix: pre });
      if (interviewer === undefined || interviewer === null) throw badRequest(`${pre}InterviewerId is required`);
      const login = requireTime(r.LoginTime, `${pre}LoginTime`);
      const logout = r.LogoutTime === undefined || r.LogoutTime === null ? null : requireTime(r.LogoutTime, `${pre}LogoutTime`);
      if (logout !== null && logout < login) throw badRequest(`${pre}LogoutTime is before LoginTime`);
      return { params: [callCenter, interviewer, login, logout], survey: null, interviewer, callCenter };
    },
  },
};

/** The records of an ingest body: one record, or `{"value": [...]}` of up to MAX_INGEST_BATCH. */
function recordsOf(body: unknown): { records: unknown[]; batch: boolean } {
  const b = bodyObject(body, 'one history record or {"value": [records]}');
  if (Array.isArray(b.value)) {
    if (b.value.length === 0) throw badRequest('value is empty: send at least one record');
    if (b.value.length > MAX_INGEST_BATCH) throw badRequest(`value holds ${b.value.length} records; at most ${MAX_INGEST_BATCH} per request`);
    return { records: b.value, batch: true };
  }
  return { records: [b], batch: false };
}

/**
 * Ingests history records in one transaction and answers their new ids in the order posted. Any invalid
 * record or unknown survey / interviewer / call centre → 400 naming the record index; nothing is stored.
 */
export function ingestHistory(db: Db, kind: HistoryKind, body: unknown): number[] {
  const spec = SPECS[kind];
  const { records, batch } = recordsOf(body);
  const rows = records.map((rec, i) => {
    const pre = batch ? `Record ${i}: ` : '';
    if (rec === null || typeof rec !== 'object' || Array.isArray(rec)) throw badRequest(`${pre}a record must be a JSON object`);
    const r = rec as Record<string, unknown>;
    if (r.Id !== undefined || r.SessionId !== undefined) throw badRequest(`${pre}ids are assigned by the server; leave out ${r.Id !== undefined ? 'Id' : 'SessionId'}`);
    rejectUnknown(r, spec.fields, pre);
    return { pre, ...spec.read(r, pre) };
  });
  const surveyOk = cachedCheck(db, 'SELECT 1 FROM surveys WHERE id = ?');
  const interviewerOk = cachedCheck(db, 'SELECT 1 FROM interviewers WHERE id = ?');
  const callCenterOk = cachedCheck(db, 'SELECT 1 FROM call_centers WHERE id = ?');
  const insert = db.prepare(spec.insert);
  const setVar = db.prepare('INSERT OR REPLACE INTO interview_variables (survey_id, interview_id, name, value) VALUES (?, ?, ?, ?)');
  return db.transaction(() => {
    const ids: number[] = [];
    for (const row of rows) {
      const at = row.pre || 'Record 0: '; // a single record is index 0 of what was posted
      if (row.survey !== null && !surveyOk(row.survey)) throw badRequest(`${at}unknown survey '${row.survey}'`);
      if (row.interviewer !== null && !interviewerOk(row.interviewer)) throw badRequest(`${at}unknown interviewer ${row.interviewer}`);
      if (!callCenterOk(row.callCenter)) throw badRequest(`${at}unknown call centre ${row.callCenter}`);
      ids.push(Number(insert.run(...row.params).lastInsertRowid));
      for (const [name, value] of row.variables ?? []) setVar.run(row.survey, row.interviewId, name, value);
    }
    return ids;
  }).immediate();
}

function cachedCheck(db: Db, sql: string): (key: string | number) => boolean {
  const stmt = db.prepare(sql).pluck();
  const cache = new Map<string | number, boolean>();
  return (key) => {
    let ok = cache.get(key);
    if (ok === undefined) cache.set(key, (ok = stmt.get(key) !== undefined));
    return ok;
  };
}

/** `PATCH /cati/interviewersessionhistory(id)` {LogoutTime}: closes (or re-closes) a session. */
export function closeSession(db: Db, sessionId: number, body: unknown, ifMatch?: string): void {
  const b = bodyObject(body, '{"LogoutTime": "<date-time>"}');
  rejectUnknown(b, ['SessionId', 'LogoutTime']);
  if (b.SessionId !== undefined && b.SessionId !== sessionId) throw badRequest(`SessionId in the body does not match the key ${sessionId}`);
  const logout = requireTime(b.LogoutTime, 'LogoutTime');
  db.transaction(() => {
    const row = db.prepare('SELECT login_time, version FROM sessions WHERE id = ?').get(sessionId) as { login_time: number; version: number } | undefined;
    if (!row) throw notFound(`Session ${sessionId} does not exist`);
    checkVersion(row.version, ifMatch);
    if (logout < row.login_time) throw badRequest('LogoutTime is before the session\'s LoginTime');
    db.prepare('UPDATE sessions SET logout_time = ?, version = version + 1 WHERE id = ?').run(logout, sessionId);
  }).immediate();
}
