/**
 * Closing what ingest left open (docs/cati-api.md#floor): `PATCH` of a call, a break or a session, and the rule that
 * an interviewer has at most one open session. A record closes once; a second PATCH is a 409.
 */
import type { Queryable, Store } from '../db/store.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { publishChange, wireRecord } from '../events/publisher.ts';
import { queryEntity, type Row } from '../odata/collection-query.ts';
import type { EntityModel } from '../odata/model.ts';
import { bodyObject, optInt, rejectUnknown } from './body-fields.ts';
import { breakHistoryModel, callHistoryModel, sessionHistoryModel } from './cati-models.ts';
import { checkVersion } from './etag-check.ts';
import { readVariables, recordTime } from './history-fields.ts';

const NON_NEG = { min: 0, max: 2147483647 };

/** An answer's value as stored (an upsert, as the answers are kept per survey, interview and name). */
export const SET_VARIABLE = `INSERT INTO interview_variables (survey_id, interview_id, name, value) VALUES (?, ?, ?, ?)
  ON CONFLICT (survey_id, interview_id, name) DO UPDATE SET value = excluded.value`;

/** A record as the API returns it (wire form). */
async function wire(db: Queryable, model: EntityModel, id: number): Promise<Record<string, unknown>> {
  return wireRecord(model, (await queryEntity(db, model, id)) as Row);
}

/** A session as the API returns it (wire form). */
export function sessionRecord(db: Queryable, id: number): Promise<Record<string, unknown>> {
  return wire(db, sessionHistoryModel, id);
}

/**
 * Inside the ingest transaction, after session `id` (login at `login`) was inserted: closes the interviewer's
 * other open sessions that began no later, at `login`; and if one began later, closes this one at that time.
 */
export async function closeEarlierOpenSessions(
  db: Queryable,
  id: number,
  interviewer: number,
  login: number,
): Promise<{ closed: Row[]; selfClosed: boolean }> {
  const earlier = await db.column<number>('SELECT id FROM sessions WHERE interviewer_id = ? AND logout_time IS NULL AND id <> ? AND login_time <= ?', [
    interviewer, id, login,
  ]);
  const closed: Row[] = [];
  for (const e of earlier) {
    await db.run('UPDATE sessions SET logout_time = ?, version = version + 1 WHERE id = ?', [login, e]);
    closed.push((await queryEntity(db, sessionHistoryModel, e)) as Row);
  }
  const later = (await db.value<number | null>(
    'SELECT MIN(login_time) FROM sessions WHERE interviewer_id = ? AND logout_time IS NULL AND id <> ? AND login_time > ?',
    [interviewer, id, login],
  )) ?? null;
  const selfClosed =
    later !== null && (await db.run('UPDATE sessions SET logout_time = ?, version = version + 1 WHERE id = ? AND logout_time IS NULL', [later, id])).changes > 0;
  return { closed, selfClosed };
}

/** `PATCH /cati/interviewersessionhistory(id)` {LogoutTime}: closes an open session; a closed one → 409. */
export async function closeSession(store: Store, sessionId: number, body: unknown, ifMatch?: string): Promise<void> {
  const b = bodyObject(body, '{"LogoutTime": "<date-time>"}');
  rejectUnknown(b, ['SessionId', 'LogoutTime']);
  if (b.SessionId !== undefined && b.SessionId !== sessionId) throw badRequest(`SessionId in the body does not match the key ${sessionId}`);
  const logout = recordTime(b.LogoutTime, 'LogoutTime');
  await store.transaction(async (tx) => {
    const row = await tx.get<{ login_time: number; logout_time: number | null; version: number }>(
      'SELECT login_time, logout_time, version FROM sessions WHERE id = ?',
      [sessionId],
    );
    if (!row) throw notFound(`Session ${sessionId} does not exist`);
    checkVersion(row.version, ifMatch);
    if (row.logout_time !== null) {
      throw conflict(`Session ${sessionId} is already closed (LogoutTime ${new Date(row.logout_time).toISOString()}); a closed session cannot be changed`);
    }
    if (logout < row.login_time) throw badRequest('LogoutTime is before the session\'s LoginTime');
    await tx.run('UPDATE sessions SET logout_time = ?, version = version + 1 WHERE id = ?', [logout, sessionId]);
    await publishChange(tx, { type: 'session', action: 'closed', id: sessionId, record: await sessionRecord(tx, sessionId) });
  });
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
export async function closeCall(store: Store, id: number, body: unknown, ifMatch?: string): Promise<void> {
  const b = bodyObject(body, '{"Duration": seconds, "ExtendedStatus": code, "WaitingTime": seconds, "Variables": {...}}');
  rejectUnknown(b, ['Id', 'Time', 'Duration', 'ExtendedStatus', 'WaitingTime', 'Variables']);
  const { time, duration } = readClose(b, 'call', id);
  const status = optInt(b, 'ExtendedStatus', { nullable: true });
  const waiting = optInt(b, 'WaitingTime', NON_NEG);
  const variables = readVariables(b, '');
  await store.transaction(async (tx) => {
    const row = await tx.get<{ survey_id: string; interview_id: number | null; duration: number | null }>(
      'SELECT survey_id, interview_id, duration FROM calls WHERE id = ?',
      [id],
    );
    assertOpen('call', id, row);
    checkVersion(1, ifMatch);
    if (variables && row!.interview_id === null) throw badRequest('Variables need the call\'s InterviewId (answers are stored per survey and interview)');
    await tx.run(
      `UPDATE calls SET duration = ?, time = COALESCE(?, time), extended_status = CASE WHEN ? = 1 THEN ? ELSE extended_status END,
      waiting_time = COALESCE(?, waiting_time) WHERE id = ?`,
      [duration, time ?? null, status === undefined ? 0 : 1, status ?? null, waiting ?? null, id],
    );
    for (const [name, value] of variables ?? []) await tx.run(SET_VARIABLE, [row!.survey_id, row!.interview_id, name, value]);
    await publishChange(tx, { type: 'call', action: 'closed', id, record: await wire(tx, callHistoryModel, id) });
  });
}

/** `PATCH /cati/breakhistory(id)` {Duration}: closes an open break. */
export async function closeBreak(store: Store, id: number, body: unknown, ifMatch?: string): Promise<void> {
  const b = bodyObject(body, '{"Duration": seconds}');
  rejectUnknown(b, ['Id', 'Time', 'Duration']);
  const { time, duration } = readClose(b, 'break', id);
  await store.transaction(async (tx) => {
    const row = await tx.get<{ duration: number | null }>('SELECT duration FROM breaks WHERE id = ?', [id]);
    assertOpen('break', id, row);
    checkVersion(1, ifMatch);
    await tx.run('UPDATE breaks SET duration = ?, time = COALESCE(?, time) WHERE id = ?', [duration, time ?? null, id]);
    await publishChange(tx, { type: 'break', action: 'closed', id, record: await wire(tx, breakHistoryModel, id) });
  });
}
