import { diffChanges, recordAuditSync } from '../audit/audit-log.ts';
import type { Db } from '../db/open.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import {
  bodyObject, optBool, optEnum, optIdArray, optInt, optString, rejectUnknown, reqString, SURVEY_ID,
} from './body-fields.ts';
import { checkVersion } from './etag-check.ts';
import { ROOT_GROUP_ID } from './groups-service.ts';
import { hashPassword } from './password.ts';

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

function assertReferences(db: Db, input: InterviewerInput): void {
  const cc = input.values.call_center_id;
  if (cc !== undefined && !db.prepare('SELECT 1 FROM call_centers WHERE id = ?').get(cc)) throw badRequest(`CallCenterId: call centre ${cc} does not exist`);
  const s = input.values.automatic_survey_id;
  if (s && !db.prepare(`SELECT 1 FROM surveys WHERE id = ? AND state <> 'SoftDeleted'`).get(s)) {
    throw badRequest(`AutomaticSurveyId: survey '${s}' does not exist`);
  }
  const exists = db.prepare('SELECT 1 FROM groups WHERE id = ?');
  for (const g of input.parents ?? []) if (!exists.get(g)) throw badRequest(`ParentGroups: group ${g} does not exist`);
}

function assertNameFree(db: Db, name: string | number | null | undefined, exceptId: number | null): void {
  if (name === undefined) return;
  const other = db.prepare('SELECT id FROM interviewers WHERE name = ? AND id IS NOT ?').pluck().get(name, exceptId) as number | undefined;
  if (other !== undefined) {
    throw conflict(`An interviewer named '${String(name)}' already exists`, [{ code: 'ExistingId', target: 'Id', message: String(other) }]);
  }
}

function setGroups(db: Db, id: number, groups: number[]): void {
  db.prepare('DELETE FROM interviewer_groups WHERE interviewer_id = ?').run(id);
  const ins = db.prepare('INSERT INTO interviewer_groups (interviewer_id, group_id) VALUES (?, ?)');
  for (const g of groups.length ? groups : [ROOT_GROUP_ID]) ins.run(id, g);
}

/** Current row version of an interviewer, or a 404. */
export function interviewerVersion(db: Db, id: number): number {
  const v = db.prepare('SELECT version FROM interviewers WHERE id = ?').pluck().get(id) as number | undefined;
  if (v === undefined) throw notFound(`Interviewer ${id} does not exist`);
  return v;
}

/** Creates an interviewer (password hashed with scrypt and a random salt); answers the new id. */
export async function createInterviewer(db: Db, body: unknown): Promise<number> {
  const input = readInput(body, true);
  const id = (body as Record<string, unknown>).InterviewerId;
  if (id !== undefined && id !== 0 && id !== null) throw badRequest('InterviewerId must be absent or 0 when creating an interviewer (the server assigns it)');
  const hash = input.password === undefined ? null : await hashPassword(input.password);
  const now = Date.now();
  return db.transaction(() => {
    assertReferences(db, input);
    assertNameFree(db, input.values.name, null);
    const cols = Object.keys(input.values);
    const extra: Record<string, string | number | null> = {
      password_hash: hash,
      pwd_set_date: hash ? now : null,
      is_locked: input.isLocked ? 1 : 0,
      locked_date: input.isLocked ? now : null,
    };
    const all = [...cols, ...Object.keys(extra)];
    const sql = `INSERT INTO interviewers (${all.join(', ')}) VALUES (${all.map(() => '?').join(', ')})`;
    const newId = Number(db.prepare(sql).run(...cols.map((c) => input.values[c]!), ...Object.values(extra)).lastInsertRowid);
    setGroups(db, newId, input.parents ?? []);
    const created: Record<string, unknown> = { ...wireValues(db, newId, input), IsLocked: input.isLocked === true };
    created.ParentGroups = groupsOfInterviewer(db, newId);
    if (hash) created.Password = '(set)';
    recordAuditSync(db, { action: 'created', entity: 'interviewers', entityId: newId, changes: created });
    return newId;
  }).immediate();
}

/**
 * Updates the fields present in the body (PUT and PATCH); Password and ParentGroups change only when sent.
 * Audited with the fields that changed; a password change is recorded without the password.
 */
export async function updateInterviewer(db: Db, id: number, body: unknown, ifMatch?: string): Promise<void> {
  const input = readInput(body, false);
  const bodyId = (body as Record<string, unknown>).InterviewerId;
  if (bodyId !== undefined && bodyId !== id) throw badRequest(`InterviewerId in the body (${String(bodyId)}) does not match the key ${id}`);
  const hash = input.password === undefined ? undefined : await hashPassword(input.password);
  const now = Date.now();
  db.transaction(() => {
    checkVersion(interviewerVersion(db, id), ifMatch);
    assertReferences(db, input);
    assertNameFree(db, input.values.name, id);
    const before = auditedFields(db, id, input);
    const sets = Object.keys(input.values).map((c) => `${c} = ?`);
    const params: (string | number | null)[] = Object.values(input.values);
    if (hash !== undefined) {
      sets.push('password_hash = ?', 'pwd_set_date = ?');
      params.push(hash, now);
    }
    db.prepare(`UPDATE interviewers SET ${[...sets, 'version = version + 1'].join(', ')} WHERE id = ?`).run(...params, id);
    if (input.isLocked !== undefined) setLocked(db, id, input.isLocked, now);
    if (input.parents !== undefined) setGroups(db, id, input.parents);
    const changes: Record<string, unknown> = diffChanges(before, auditedFields(db, id, input));
    if (hash !== undefined) changes.Password = [null, '(changed)'];
    recordAuditSync(db, { action: 'updated', entity: 'interviewers', entityId: id, changes });
  }).immediate();
}

/** The wire values of the plain fields (those `input` carries, or all of them); never the password. */
function wireValues(db: Db, id: number, input?: InterviewerInput): Record<string, unknown> {
  const row = db.prepare('SELECT * FROM interviewers WHERE id = ?').get(id) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [wire, column] of Object.entries(COLUMNS)) if (!input || column in input.values) out[wire] = row[column];
  return out;
}

/** The wire values of the fields an update touches (the audit's before and after). */
function auditedFields(db: Db, id: number, input: InterviewerInput): Record<string, unknown> {
  const out = wireValues(db, id, input);
  const row = db.prepare('SELECT is_locked FROM interviewers WHERE id = ?').get(id) as { is_locked: number };
  if (input.isLocked !== undefined) out.IsLocked = row.is_locked === 1;
  if (input.parents !== undefined) out.ParentGroups = groupsOfInterviewer(db, id);
  return out;
}

/** Deletes an interviewer with memberships and assignments; history rows keep their InterviewerId. */
export function deleteInterviewer(db: Db, id: number, ifMatch?: string): void {
  db.transaction(() => {
    checkVersion(interviewerVersion(db, id), ifMatch);
    const old = { ...wireValues(db, id), ParentGroups: groupsOfInterviewer(db, id) };
    db.prepare('DELETE FROM interviewers WHERE id = ?').run(id);
    recordAuditSync(db, { action: 'deleted', entity: 'interviewers', entityId: id, changes: old });
  }).immediate();
}

/** Sets the lock state; true when it changed. */
function setLocked(db: Db, id: number, locked: boolean, now: number): boolean {
  if (locked) {
    return db.prepare('UPDATE interviewers SET is_locked = 1, locked_date = ?, version = version + 1 WHERE id = ? AND is_locked = 0').run(now, id).changes > 0;
  }
  return db.prepare('UPDATE interviewers SET is_locked = 0, locked_date = NULL, version = version + 1 WHERE id = ? AND is_locked = 1').run(id).changes > 0;
}

/**
 * Lock (keeps the first LockedDate when already locked) or Unlock (clears both); idempotent, keeps
 * assignments. Answers whether the state changed.
 */
export function lockInterviewer(db: Db, id: number, locked: boolean): boolean {
  return db.transaction(() => {
    interviewerVersion(db, id);
    const changed = setLocked(db, id, locked, Date.now());
    if (changed) recordAuditSync(db, { action: locked ? 'locked' : 'unlocked', entity: 'interviewers', entityId: id, changes: { IsLocked: [!locked, locked] } });
    return changed;
  }).immediate();
}

/** Group ids an interviewer is a direct member of. */
export function groupsOfInterviewer(db: Db, id: number): number[] {
  return db.prepare('SELECT group_id FROM interviewer_groups WHERE interviewer_id = ? ORDER BY group_id').pluck().all(id) as number[];
}
