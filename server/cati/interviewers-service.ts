import { diffChanges, recordAudit } from '../audit/audit-log.ts';
import type { Queryable, Store } from '../db/store.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { interviewerAssignmentRows, type AssignmentRecord } from '../events/assignment-events.ts';
import {
  bodyObject, optBool, optEnum, optIdArray, optInt, optString, rejectUnknown, reqString, SURVEY_ID,
} from './body-fields.ts';
import { checkVersion } from './etag-check.ts';
import { missingGroup, ROOT_GROUP_ID } from './groups-service.ts';
import { hashPassword, INTERVIEWER_COST } from '../auth/passwords.ts';

export const DIAL_TYPES = ['Automatic', 'Manual', 'Assisted'] as const;
export const LIST_MODES = ['AssignedCallsOnly', 'AllCalls'] as const;

const KNOWN = [
  'InterviewerId', 'Name', 'DisplayName', 'Description', 'CallCenterId', 'Location', 'DialType', 'AssignmentsListMode',
  'AutomaticSurveyId', 'IsLocked', 'LockedDate', 'PwdSetDate', 'Attribute1', 'Attribute2', 'Attribute3', 'Attribute4',
  'Attribute5', 'Password', 'ParentGroups',
] as const;

/** Column of each plain writable text/int field. */
const COLUMNS: Record<string, string> = {
  Name: 'name', DisplayName: 'display_name', Description: 'description', CallCenterId: 'call_center_id', Location: 'location',
  DialType: 'dial_type', AssignmentsListMode: 'assignments_list_mode', AutomaticSurveyId: 'automatic_survey_id',
  Attribute1: 'attribute1', Attribute2: 'attribute2', Attribute3: 'attribute3', Attribute4: 'attribute4', Attribute5: 'attribute5',
};

interface InterviewerInput {
  values: Record<string, string | number | null>; // column → value
  password?: string;
  isLocked?: boolean;
  parents?: number[];
}

function readInput(body: unknown, creating: boolean): InterviewerInput {
  const b = bodyObject(body, 'an Interviewer {Name, Password, ParentGroups, ...}');
  rejectUnknown(b, KNOWN);
  const v: Record<string, string | number | null | undefined> = {};
  if (creating || b.Name !== undefined) v.name = reqString(b, 'Name', { max: 255 });
  for (const f of ['DisplayName', 'Description', 'Location', 'Attribute1', 'Attribute2', 'Attribute3', 'Attribute4', 'Attribute5']) {
    v[COLUMNS[f]!] = optString(b, f, { max: 1000, nullable: true });
  }
  v.call_center_id = optInt(b, 'CallCenterId', { min: 1 });
  v.dial_type = optEnum(b, 'DialType', DIAL_TYPES);
  v.assignments_list_mode = optEnum(b, 'AssignmentsListMode', LIST_MODES);
  const auto = optString(b, 'AutomaticSurveyId', { nullable: true });
  if (auto && !SURVEY_ID.test(auto)) throw badRequest(`AutomaticSurveyId '${auto}' must be 'p' followed by digits`);
  v.automatic_survey_id = auto === '' ? null : auto;
  const password = optString(b, 'Password', { max: 1000 });
  if (password === '') throw badRequest('Password must not be empty');
  const values = Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined)) as Record<string, string | number | null>;
  return { values, password: password ?? undefined, isLocked: optBool(b, 'IsLocked') ?? undefined, parents: optIdArray(b, 'ParentGroups') };
}

async function assertReferences(db: Queryable, input: InterviewerInput): Promise<void> {
  const cc = input.values.call_center_id;
  if (cc !== undefined && (await db.value('SELECT 1 FROM call_centers WHERE id = ?', [cc])) === undefined) {
    throw badRequest(`CallCenterId: call centre ${cc} does not exist`);
  }
  const s = input.values.automatic_survey_id;
  if (s && (await db.value(`SELECT 1 FROM surveys WHERE id = ? AND state <> 'SoftDeleted'`, [s])) === undefined) {
    throw badRequest(`AutomaticSurveyId: survey '${s}' does not exist`);
  }
  const missing = await missingGroup(db, input.parents ?? []);
  if (missing !== undefined) throw badRequest(`ParentGroups: group ${missing} does not exist`);
}

async function assertNameFree(db: Queryable, name: string | number | null | undefined, exceptId: number | null): Promise<void> {
  if (name === undefined) return;
  const other = await db.value<number>(`SELECT id FROM interviewers WHERE name = ? AND NOT (${db.dialect.isSame('id', '?')})`, [name, exceptId]);
  if (other !== undefined) {
    throw conflict(`An interviewer named '${String(name)}' already exists`, [{ code: 'ExistingId', target: 'Id', message: String(other) }]);
  }
}

async function setGroups(db: Queryable, id: number, groups: number[]): Promise<void> {
  await db.run('DELETE FROM interviewer_groups WHERE interviewer_id = ?', [id]);
  for (const g of groups.length ? groups : [ROOT_GROUP_ID]) await db.run('INSERT INTO interviewer_groups (interviewer_id, group_id) VALUES (?, ?)', [id, g]);
}

/** Current row version of an interviewer, or a 404. */
export async function interviewerVersion(db: Queryable, id: number): Promise<number> {
  const v = await db.value<number>('SELECT version FROM interviewers WHERE id = ?', [id]);
  if (v === undefined) throw notFound(`Interviewer ${id} does not exist`);
  return v;
}

/** Creates an interviewer (password hashed with scrypt and a random salt); answers the new id. */
export async function createInterviewer(store: Store, body: unknown): Promise<number> {
  const input = readInput(body, true);
  const id = (body as Record<string, unknown>).InterviewerId;
  if (id !== undefined && id !== 0 && id !== null) throw badRequest('InterviewerId must be absent or 0 when creating an interviewer (the server assigns it)');
  const hash = input.password === undefined ? null : await hashPassword(input.password, INTERVIEWER_COST);
  const now = Date.now();
  return store.transaction(async (tx) => {
    await assertReferences(tx, input);
    await assertNameFree(tx, input.values.name, null);
    const cols = Object.keys(input.values);
    const extra: Record<string, string | number | null> = {
      password_hash: hash,
      pwd_set_date: hash ? now : null,
      is_locked: input.isLocked ? 1 : 0,
      locked_date: input.isLocked ? now : null,
    };
    const all = [...cols, ...Object.keys(extra)];
    const sql = `INSERT INTO interviewers (${all.join(', ')}) VALUES (${all.map(() => '?').join(', ')}) RETURNING id`;
    const newId = (await tx.value<number>(sql, [...cols.map((c) => input.values[c]!), ...Object.values(extra)]))!;
    await setGroups(tx, newId, input.parents ?? []);
    const created: Record<string, unknown> = { ...(await wireValues(tx, newId, input)), IsLocked: input.isLocked === true };
    created.ParentGroups = await groupsOfInterviewer(tx, newId);
    if (hash) created.Password = '(set)';
    await recordAudit(tx, { action: 'created', entity: 'interviewers', entityId: newId, changes: created });
    return newId;
  });
}

/**
 * Updates the fields present in the body (PUT and PATCH); Password and ParentGroups change only when sent.
 * Audited with the fields that changed; a password change is recorded without the password.
 */
export async function updateInterviewer(store: Store, id: number, body: unknown, ifMatch?: string): Promise<void> {
  const input = readInput(body, false);
  const bodyId = (body as Record<string, unknown>).InterviewerId;
  if (bodyId !== undefined && bodyId !== id) throw badRequest(`InterviewerId in the body (${String(bodyId)}) does not match the key ${id}`);
  const hash = input.password === undefined ? undefined : await hashPassword(input.password, INTERVIEWER_COST);
  const now = Date.now();
  await store.transaction(async (tx) => {
    checkVersion(await interviewerVersion(tx, id), ifMatch);
    await assertReferences(tx, input);
    await assertNameFree(tx, input.values.name, id);
    const before = await auditedFields(tx, id, input);
    const sets = Object.keys(input.values).map((c) => `${c} = ?`);
    const params: (string | number | null)[] = Object.values(input.values);
    if (hash !== undefined) {
      sets.push('password_hash = ?', 'pwd_set_date = ?');
      params.push(hash, now);
    }
    await tx.run(`UPDATE interviewers SET ${[...sets, 'version = version + 1'].join(', ')} WHERE id = ?`, [...params, id]);
    if (input.isLocked !== undefined) await setLocked(tx, id, input.isLocked, now);
    if (input.parents !== undefined) await setGroups(tx, id, input.parents);
    const changes: Record<string, unknown> = diffChanges(before, await auditedFields(tx, id, input));
    if (hash !== undefined) changes.Password = [null, '(changed)'];
    await recordAudit(tx, { action: 'updated', entity: 'interviewers', entityId: id, changes });
  });
}

/** The wire values of the plain fields (those `input` carries, or all of them); never the password. */
async function wireValues(db: Queryable, id: number, input?: InterviewerInput): Promise<Record<string, unknown>> {
  const row = (await db.get<Record<string, unknown>>('SELECT * FROM interviewers WHERE id = ?', [id]))!;
  const out: Record<string, unknown> = {};
  for (const [wire, column] of Object.entries(COLUMNS)) if (!input || column in input.values) out[wire] = row[column];
  return out;
}

/** The wire values of the fields an update touches (the audit's before and after). */
async function auditedFields(db: Queryable, id: number, input: InterviewerInput): Promise<Record<string, unknown>> {
  const out = await wireValues(db, id, input);
  const locked = await db.value<number>('SELECT is_locked FROM interviewers WHERE id = ?', [id]);
  if (input.isLocked !== undefined) out.IsLocked = locked === 1;
  if (input.parents !== undefined) out.ParentGroups = await groupsOfInterviewer(db, id);
  return out;
}

/**
 * Deletes an interviewer with memberships and assignments; history rows keep their InterviewerId.
 * Answers what the events announce, read in the same transaction: the record as `read` gives it (before
 * the delete) and the assignment rows that went with it.
 */
export async function deleteInterviewer<R>(
  store: Store,
  id: number,
  ifMatch?: string,
  read: (tx: Queryable) => Promise<R> = async () => undefined as R,
): Promise<{ record: R; assignments: AssignmentRecord[] }> {
  return store.transaction(async (tx) => {
    checkVersion(await interviewerVersion(tx, id), ifMatch);
    const record = await read(tx);
    const assignments = await interviewerAssignmentRows(tx, id);
    const old = { ...(await wireValues(tx, id)), ParentGroups: await groupsOfInterviewer(tx, id) };
    await tx.run('DELETE FROM interviewers WHERE id = ?', [id]);
    await recordAudit(tx, { action: 'deleted', entity: 'interviewers', entityId: id, changes: old });
    return { record, assignments };
  });
}

/** Sets the lock state; true when it changed. */
async function setLocked(db: Queryable, id: number, locked: boolean, now: number): Promise<boolean> {
  const r = locked
    ? await db.run('UPDATE interviewers SET is_locked = 1, locked_date = ?, version = version + 1 WHERE id = ? AND is_locked = 0', [now, id])
    : await db.run('UPDATE interviewers SET is_locked = 0, locked_date = NULL, version = version + 1 WHERE id = ? AND is_locked = 1', [id]);
  return r.changes > 0;
}

/**
 * Lock (keeps the first LockedDate when already locked) or Unlock (clears both); idempotent, keeps
 * assignments. Answers whether the state changed.
 */
export async function lockInterviewer(store: Store, id: number, locked: boolean): Promise<boolean> {
  return store.transaction(async (tx) => {
    await interviewerVersion(tx, id);
    const changed = await setLocked(tx, id, locked, Date.now());
    if (changed) await recordAudit(tx, { action: locked ? 'locked' : 'unlocked', entity: 'interviewers', entityId: id, changes: { IsLocked: [!locked, locked] } });
    return changed;
  });
}

/** Group ids an interviewer is a direct member of. */
export function groupsOfInterviewer(db: Queryable, id: number): Promise<number[]> {
  return db.column<number>('SELECT group_id FROM interviewer_groups WHERE interviewer_id = ? ORDER BY group_id', [id]);
}
