/**
 * Closing what ingest left open (CONTRACT §9): `PATCH` of a call, a break or a session, and the rule that
 * an interviewer has at most one open session. A record closes once; a second PATCH is a 409.
 */
import type { Db } from '../db/open.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { publishChangeSync, wireRecord } from '../events/publisher.ts';
import { queryEntitySync, type Row } from '../odata/collection-query.ts';
import { bodyObject, optInt, rejectUnknown } from './body-fields.ts';
import { breakHistoryModel, callHistoryModel, sessionHistoryModel } from './cati-models.ts';
import { checkVersion } from './etag-check.ts';
import { readVariables, recordTime } from './history-fields.ts';

const NON_NEG = { min: 0, max: 2147483647 };

/** A session as the API returns it (wire form). */
export function sessionRecord(db: Db, id: number): Record<string, unknown> {
  return wireRecord(sessionHistoryModel, queryEntitySync(db, sessionHistoryModel, id) as Row);
}

/**
 * Inside the ingest transaction, after session `id` (login at `login`) was inserted: closes the interviewer's
 * other open sessions that began no later, at `login`; and if one began later, closes this one at that time.
 */
export function closeEarlierOpenSessions(db: Db, id: number, interviewer: number, login: number): { closed: Row[]; selfClosed: boolean } {
  const earlier = db
    .prepare('SELECT id FROM sessions WHERE interviewer_id = ? AND logout_time IS NULL AND id <> ? AND login_time <= ?')
    .pluck()
    .all(interviewer, id, login) as number[];
  const close = db.prepare('UPDATE sessions SET logout_time = ?, version = version + 1 WHERE id = ?');
  const closed = earlier.map((e) => {
    close.run(login, e);
    return queryEntitySync(db, sessionHistoryModel, e) as Row;
  });
  const later = db
    .prepare('SELECT MIN(login_time) FROM sessions WHERE interviewer_id = ? AND logout_time IS NULL AND id <> ? AND login_time > ?')
    .pluck()
    .get(interviewer, id, login) as number | null;
  const selfClosed =
    later !== null && db.prepare('UPDATE sessions SET logout_time = ?, version = version + 1 WHERE id = ? AND logout_time IS NULL').run(later, id).changes > 0;
  return { closed, selfClosed };
}

/** `PATCH /cati/interviewersessionhistory(id)` {LogoutTime}: closes an open session; a closed one → 409. */
export function closeSession(db: Db, sessionId: number, body: unknown, ifMatch?: string): void {
  const b = bodyObject(body, '{"LogoutTime": "<date-time>"}');
  rejectUnknown(b, ['SessionId', 'LogoutTime']);
  if (b.SessionId !== undefined && b.SessionId !== sessionId) throw badRequest(`SessionId in the body does not match the key ${sessionId}`);
  const logout = recordTime(b.LogoutTime, 'LogoutTime');
  const record = db.transaction(() => {
    const row = db.prepare('SELECT login_time, logout_time, version FROM sessions WHERE id = ?').get(sessionId) as
      | { login_time: number; logout_time: number | null; version: number }
      | undefined;
    if (!row) throw notFound(`Session ${sessionId} does not exist`);
    checkVersion(row.version, ifMatch);
    if (row.logout_time !== null) {
      throw conflict(`Session ${sessionId} is already closed (LogoutTime ${new Date(row.logout_time).toISOString()}); a closed session cannot be changed`);
    }
    if (logout < row.login_time) throw badRequest('LogoutTime is before the session\'s LoginTime');
    db.prepare('UPDATE sessions SET logout_time = ?, version = version + 1 WHERE id = ?').run(logout, sessionId);
    return sessionRecord(db, sessionId);
  }).immediate();
  publishChangeSync(db, { type: 'session', action: 'closed', id: sessionId, record });
}

/** Time, Duration (required) of a closing PATCH; the record must be open. */
function readClose(b: Record<string, unknown>, what: string, id: number): { time: number | undefined; duration: number } {
  if (b.Id !== undefined && b.Id !== id) throw badRequest(`Id in the body does not match the key ${id}`);
  const time = b.Time === undefined ? undefined : recordTime(b.Time, 'Time');
  const duration = optInt(b, 'Duration', NON_NEG);
  if (duration === undefined || duration === null) throw badRequest(`Duration (seconds) is required: the PATCH closes the open ${what}`);
  return { time, duration };
}

function assertOpen(kind: string, id: number, row: { duration: number | null } | undefined): void {
  if (!row) throw notFound(`No ${kind} with Id ${id}`);
  if (row.duration !== null) throw conflict(`${kind[0]!.toUpperCase()}${kind.slice(1)} ${id} is already closed (Duration ${row.duration}); a closed record cannot be changed`);
}

/** `PATCH /cati/callhistory(id)` {Duration, ExtendedStatus, WaitingTime, Variables}: closes an open call. */
export function closeCall(db: Db, id: number, body: unknown, ifMatch?: string): void {
  const b = bodyObject(body, '{"Duration": seconds, "ExtendedStatus": code, "WaitingTime": seconds, "Variables": {...}}');
  rejectUnknown(b, ['Id', 'Time', 'Duration', 'ExtendedStatus', 'WaitingTime', 'Variables']);
  const { time, duration } = readClose(b, 'call', id);
  const status = optInt(b, 'ExtendedStatus', { nullable: true });
  const waiting = optInt(b, 'WaitingTime', NON_NEG);
  const variables = readVariables(b, '');
  const record = db.transaction(() => {
    const row = db.prepare('SELECT survey_id, interview_id, duration FROM calls WHERE id = ?').get(id) as
      | { survey_id: string; interview_id: number | null; duration: number | null }
      | undefined;
    assertOpen('call', id, row);
    checkVersion(1, ifMatch);
    if (variables && row!.interview_id === null) throw badRequest('Variables need the call\'s InterviewId (answers are stored per survey and interview)');
    db.prepare(`UPDATE calls SET duration = ?, time = COALESCE(?, time), extended_status = CASE WHEN ? THEN ? ELSE extended_status END,
      waiting_time = COALESCE(?, waiting_time) WHERE id = ?`).run(duration, time ?? null, status === undefined ? 0 : 1, status ?? null, waiting ?? null, id);
    const setVar = db.prepare('INSERT OR REPLACE INTO interview_variables (survey_id, interview_id, name, value) VALUES (?, ?, ?, ?)');
    for (const [name, value] of variables ?? []) setVar.run(row!.survey_id, row!.interview_id, name, value);
    return wireRecord(callHistoryModel, queryEntitySync(db, callHistoryModel, id) as Row);
  }).immediate();
  publishChangeSync(db, { type: 'call', action: 'closed', id, record });
}

/** `PATCH /cati/breakhistory(id)` {Duration}: closes an open break. */
export function closeBreak(db: Db, id: number, body: unknown, ifMatch?: string): void {
  const b = bodyObject(body, '{"Duration": seconds}');
  rejectUnknown(b, ['Id', 'Time', 'Duration']);
  const { time, duration } = readClose(b, 'break', id);
  const record = db.transaction(() => {
    const row = db.prepare('SELECT duration FROM breaks WHERE id = ?').get(id) as { duration: number | null } | undefined;
    assertOpen('break', id, row);
    checkVersion(1, ifMatch);
    db.prepare('UPDATE breaks SET duration = ?, time = COALESCE(?, time) WHERE id = ?').run(duration, time ?? null, id);
    return wireRecord(breakHistoryModel, queryEntitySync(db, breakHistoryModel, id) as Row);
  }).immediate();
  publishChangeSync(db, { type: 'break', action: 'closed', id, record });
}
