import { insertReturningIds } from '../db/bulk.ts';
import type { Queryable, Store } from '../db/store.ts';
import { badRequest } from '../errors.ts';
import { changeList, preparePublish, publishChanges, wireRecord, type Change, type EventList } from '../events/publisher.ts';
import type { Row } from '../odata/collection-query.ts';
import type { EntityModel } from '../odata/model.ts';
import { bodyObject, optBool, optInt, optString, rejectUnknown, reqString, SURVEY_ID } from './body-fields.ts';
import { breakHistoryModel, callHistoryModel, sessionHistoryModel } from './cati-models.ts';
import { closeEarlierOpenSessions, sessionRecord, SET_VARIABLE } from './history-close.ts';
import { readVariables, recordTime } from './history-fields.ts';

/** History ingest batch limit (docs/limits.md#limits). */
export const MAX_INGEST_BATCH = 10000;

export type HistoryKind = 'callhistory' | 'breakhistory' | 'interviewersessionhistory';

type Params = (string | number | null)[];

interface ReadRecord {
  params: Params;
  survey: string | null;
  interviewer: number | null;
  callCenter: number;
  variables?: [string, string | null][];
  interviewId?: number | null;
  /** Stored open (Duration or LogoutTime null): the event says `opened`, else `created`. */
  open: boolean;
  /** Sessions: the interviewer's login time (closes the earlier open session). */
  login?: number;
}

interface RecordSpec {
  fields: readonly string[];
  /** The table and the columns the insert parameters fill, in order. */
  table: string;
  columns: readonly string[];
  event: Change['type'];
  model: EntityModel;
  /** The stored row as the API reads it (property name → SQL value), from the insert parameters. */
  row(params: Params, id: number): Row;
  /** Validates one record; returns the insert parameters and the references to check. */
  read(r: Record<string, unknown>, pre: string): ReadRecord;
}

const INT_MAX = 2147483647;
// The limits of the record fields, built once (a batch reads up to 10,000 records).
const NON_NEG = { min: 0, max: INT_MAX };
const NON_NEG_OR_NULL = { ...NON_NEG, nullable: true };
const ID = { min: 1 };
const ID_OR_NULL = { min: 1, nullable: true };
const OR_NULL = { nullable: true };
const NOT_NULL = { nullable: false };
const PHONE = { max: 64 };
const NAME = { max: 255 };

function readSurvey(r: Record<string, unknown>, pre: string, required: boolean): string | null {
  const s = optString(r, 'SurveyId', required ? NOT_NULL : OR_NULL, pre);
  if (s === undefined || s === null) {
    if (required) throw badRequest(`${pre}SurveyId is required`);
    return null;
  }
  if (!SURVEY_ID.test(s)) throw badRequest(`${pre}SurveyId '${s}' must be 'p' followed by digits`);
  return s;
}

const SPECS: Record<HistoryKind, RecordSpec> = {
  callhistory: {
    fields: ['Time', 'SurveyId', 'InterviewId', 'InterviewerId', 'TelephoneNumber', 'ExtendedStatus', 'Duration', 'WaitingTime', 'CallCenterId', 'Variables'],
    table: 'calls',
    columns: ['time', 'survey_id', 'interview_id', 'interviewer_id', 'telephone_number', 'extended_status', 'duration', 'waiting_time', 'call_center_id'],
    event: 'call',
    model: callHistoryModel,
    row: ([Time, SurveyId, InterviewId, InterviewerId, TelephoneNumber, ExtendedStatus, Duration, WaitingTime, CallCenterId], Id) => ({
      Id, Time, SurveyId, InterviewId, InterviewerId, TelephoneNumber, ExtendedStatus, Duration, WaitingTime, CallCenterId, '@etag': Duration === null ? 1 : 2,
    }),
    read(r, pre) {
      const time = recordTime(r.Time, `${pre}Time`);
      const survey = readSurvey(r, pre, true);
      const interviewId = optInt(r, 'InterviewId', NON_NEG_OR_NULL, pre) ?? null;
      const interviewer = optInt(r, 'InterviewerId', ID_OR_NULL, pre) ?? null;
      const phone = reqString(r, 'TelephoneNumber', PHONE, pre);
      const status = optInt(r, 'ExtendedStatus', OR_NULL, pre) ?? null;
      // Duration null: the call is in progress (closed later by PATCH); absent: 0, as before open calls existed.
      const given = optInt(r, 'Duration', NON_NEG_OR_NULL, pre);
      const duration = given === undefined ? 0 : given;
      const waiting = optInt(r, 'WaitingTime', NON_NEG, pre) ?? 0;
      const callCenter = optInt(r, 'CallCenterId', ID, pre) ?? 1;
      const variables = readVariables(r, pre);
      if (variables && interviewId === null) throw badRequest(`${pre}Variables need an InterviewId (answers are stored per survey and interview)`);
      return {
        params: [time, survey, interviewId, interviewer, phone, status, duration, waiting, callCenter],
        survey, interviewer, callCenter, variables, interviewId, open: duration === null,
      };
    },
  },
  breakhistory: {
    fields: ['Time', 'SurveyId', 'Duration', 'InterviewerId', 'CallCenterId', 'BreakTypeId', 'BreakTypeName', 'IsPaid'],
    table: 'breaks',
    columns: ['time', 'survey_id', 'duration', 'interviewer_id', 'call_center_id', 'break_type_id', 'break_type_name', 'is_paid'],
    event: 'break',
    model: breakHistoryModel,
    row: ([Time, SurveyId, Duration, InterviewerId, CallCenterId, BreakTypeId, BreakTypeName, IsPaid], Id) => ({
      Id, Time, SurveyId, Duration, InterviewerId, CallCenterId, BreakTypeId, BreakTypeName, IsPaid, '@etag': Duration === null ? 1 : 2,
    }),
    read(r, pre) {
      const time = recordTime(r.Time, `${pre}Time`);
      const survey = readSurvey(r, pre, false);
      const duration = optInt(r, 'Duration', NON_NEG_OR_NULL, pre) ?? null;
      const interviewer = optInt(r, 'InterviewerId', ID, pre);
      if (interviewer === undefined || interviewer === null) throw badRequest(`${pre}InterviewerId is required`);
      const callCenter = optInt(r, 'CallCenterId', ID, pre) ?? 1;
      const typeId = optInt(r, 'BreakTypeId', NON_NEG, pre);
      if (typeId === undefined || typeId === null) throw badRequest(`${pre}BreakTypeId is required`);
      const typeName = reqString(r, 'BreakTypeName', NAME, pre);
      const paid = optBool(r, 'IsPaid', OR_NULL, pre);
      const isPaid = paid === undefined || paid === null ? null : paid ? 1 : 0;
      return { params: [time, survey, duration, interviewer, callCenter, typeId, typeName, isPaid], survey, interviewer, callCenter, open: duration === null };
    },
  },
  interviewersessionhistory: {
    fields: ['CallCenterId', 'InterviewerId', 'LoginTime', 'LogoutTime'],
    table: 'sessions',
    columns: ['call_center_id', 'interviewer_id', 'login_time', 'logout_time'],
    event: 'session',
    model: sessionHistoryModel,
    row: ([CallCenterId, InterviewerId, LoginTime, LogoutTime], SessionId) => ({ SessionId, CallCenterId, InterviewerId, LoginTime, LogoutTime, '@etag': 1 }),
    read(r, pre) {
      const callCenter = optInt(r, 'CallCenterId', ID, pre) ?? 1;
      const interviewer = optInt(r, 'InterviewerId', ID, pre);
      if (interviewer === undefined || interviewer === null) throw badRequest(`${pre}InterviewerId is required`);
      const login = recordTime(r.LoginTime, `${pre}LoginTime`);
      const logout = r.LogoutTime === undefined || r.LogoutTime === null ? null : recordTime(r.LogoutTime, `${pre}LogoutTime`);
      if (logout !== null && logout < login) throw badRequest(`${pre}LogoutTime is before LoginTime`);
      return { params: [callCenter, interviewer, login, logout], survey: null, interviewer, callCenter, open: logout === null, login };
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
 * record, time more than 5 minutes ahead, or unknown survey / interviewer / call centre → 400 naming the
 * record index; nothing is stored. A session closes the interviewer's earlier open session at its LoginTime.
 * Every stored record (and every session closed by a login) is published to /events with the transaction.
 */
export async function ingestHistory(store: Store, kind: HistoryKind, body: unknown): Promise<number[]> {
  const spec = SPECS[kind];
  const { records, batch } = recordsOf(body);
  const rows = records.map((rec, i) => {
    const pre = batch ? `Record ${i}: ` : '';
    if (rec === null || typeof rec !== 'object' || Array.isArray(rec)) throw badRequest(`${pre}a record must be a JSON object`);
    const r = rec as Record<string, unknown>;
    if (r.Id !== undefined || r.SessionId !== undefined) throw badRequest(`${pre}ids are assigned by the server; leave out ${r.Id !== undefined ? 'Id' : 'SessionId'}`);
    rejectUnknown(r, spec.fields, pre);
    const read = spec.read(r, pre) as ReadRecord & { pre: string };
    read.pre = pre; // set, not spread into a copy: 10,000 objects fewer per batch
    return read;
  });
  const changes: Change[] = [];
  let published: EventList<Change> = changes;
  const ids = await store.transaction(async (tx) => {
    changes.length = 0; // a transaction the engine retries (PostgreSQL serialization) starts afresh
    const surveys = await existing(tx, 'surveys', 'text', rows.map((r) => r.survey));
    const interviewers = await existing(tx, 'interviewers', 'int', rows.map((r) => r.interviewer));
    const callCenters = await existing(tx, 'call_centers', 'int', rows.map((r) => r.callCenter));
    for (const row of rows) {
      const at = row.pre || 'Record 0: '; // a single record is index 0 of what was posted
      if (row.survey !== null && !surveys.has(row.survey)) throw badRequest(`${at}unknown survey '${row.survey}'`);
      if (row.interviewer !== null && !interviewers.has(row.interviewer)) throw badRequest(`${at}unknown interviewer ${row.interviewer}`);
      if (!callCenters.has(row.callCenter)) throw badRequest(`${at}unknown call centre ${row.callCenter}`);
    }
    if (kind !== 'interviewersessionhistory') {
      // As /events changes (`opened` when stored open, else `created`; each record as GET reads it), made when sent;
      // what announcing them takes is made while the database writes the rows.
      const out = await insertReturningIds(tx, spec.table, spec.columns, rows.map((r) => r.params), (ids) => {
        published = changeList(rows.length, (i) => {
          const row = rows[i]!;
          return { type: spec.event, action: row.open ? 'opened' : 'created', id: ids[i]!, record: wireRecord(spec.model, spec.row(row.params, ids[i]!)) };
        });
        preparePublish(store, published);
      });
      for (const row of rows) {
        for (const [name, value] of row.variables ?? []) await tx.run(SET_VARIABLE, [row.survey, row.interviewId, name, value]);
      }
      await publishChanges(tx, published);
      return out;
    }
    const out: number[] = [];
    for (const row of rows) {
      const [id] = await insertReturningIds(tx, spec.table, spec.columns, [row.params]);
      out.push(id!);
      // One open session per interviewer: this login closes the earlier open one (or, posted open before a
      // later open login, is closed by it). Records are captured now, as each change happened.
      const { closed, selfClosed } = await closeEarlierOpenSessions(tx, id!, row.interviewer!, row.login!);
      for (const c of closed) changes.push({ type: 'session', action: 'closed', id: c.SessionId as number, record: wireRecord(sessionHistoryModel, c) });
      changes.push({ type: 'session', action: row.open && !selfClosed ? 'opened' : 'created', id: id!, record: await sessionRecord(tx, id!) });
    }
    await publishChanges(tx, changes);
    return out;
  });
  return ids;
}


/** Which of `keys` (nulls left out) exist as ids of `table`: one query for the whole batch. */
async function existing<K extends string | number>(db: Queryable, table: string, type: 'int' | 'text', keys: (K | null)[]): Promise<Set<K>> {
  const distinct = [...new Set(keys.filter((k): k is K => k !== null))];
  return new Set(await db.column<K>(`SELECT id FROM ${table} WHERE id IN ${db.dialect.jsonValues(type)}`, [JSON.stringify(distinct)]));
}
