import { diffChanges, recordAuditSync } from '../audit/audit-log.ts';
import type { Db } from '../db/open.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { bodyObject, optIdArray, optString, rejectUnknown, reqString } from './body-fields.ts';
import { prepareCached } from '../odata/collection-query.ts';
import { checkVersion } from './etag-check.ts';

/** Group "CATI Interviewers": every interviewer without another group belongs to it; it cannot be deleted. */
export const ROOT_GROUP_ID = 1;

const WRITABLE = ['GroupId', 'Name', 'Description', 'ParentGroups'] as const;

export interface GroupRow {
  GroupId: number;
  Name: string;
  Description: string | null;
  ParentGroups: number[];
}

interface GroupInput {
  name?: string;
  description?: string | null;
  parents?: number[];
}

function readInput(body: unknown, creating: boolean): GroupInput {
  const b = bodyObject(body, 'a Group {Name, Description, ParentGroups}');
  rejectUnknown(b, WRITABLE);
  const input: GroupInput = {
    description: optString(b, 'Description', { max: 1000, nullable: true }),
    parents: optIdArray(b, 'ParentGroups'),
  };
  if (creating || b.Name !== undefined) input.name = reqString(b, 'Name', { max: 255 });
  return input;
}

/** Parent ids of one group, or of every group listed (for formatting a page). */
export function parentGroupsOf(db: Db, groupIds: readonly number[]): Map<number, number[]> {
  const out = new Map<number, number[]>(groupIds.map((id) => [id, []]));
  if (groupIds.length === 0) return out;
  const rows = prepareCached(db, `SELECT group_id, parent_id FROM group_parents WHERE group_id IN (SELECT value FROM json_each(?)) ORDER BY group_id, parent_id`)
    .all(JSON.stringify(groupIds)) as { group_id: number; parent_id: number }[];
  for (const r of rows) out.get(r.group_id)?.push(r.parent_id);
  return out;
}

/** One group in wire shape, or a 404. */
export function getGroup(db: Db, id: number): GroupRow & { version: number } {
  const row = db.prepare('SELECT id, name, description, version FROM groups WHERE id = ?').get(id) as
    | { id: number; name: string; description: string | null; version: number }
    | undefined;
  if (!row) throw notFound(`Group ${id} does not exist`);
  return { GroupId: row.id, Name: row.name, Description: row.description, ParentGroups: parentGroupsOf(db, [id]).get(id)!, version: row.version };
}

function assertNameFree(db: Db, name: string, exceptId: number | null): void {
  const other = db.prepare('SELECT id FROM groups WHERE name = ? AND id IS NOT ?').pluck().get(name, exceptId) as number | undefined;
  if (other !== undefined) {
    throw conflict(`A group named '${name}' already exists`, [{ code: 'ExistingId', target: 'Id', message: String(other) }]);
  }
}

/** 400 when a parent is unknown, or when making them parents of `groupId` would create a cycle. */
function assertParents(db: Db, groupId: number | null, parents: number[]): void {
  const exists = db.prepare('SELECT 1 FROM groups WHERE id = ?').pluck();
  for (const p of parents) if (!exists.get(p)) throw badRequest(`ParentGroups: group ${p} does not exist`);
  if (groupId === null) return;
  if (parents.includes(groupId)) throw badRequest(`ParentGroups: group ${groupId} cannot be its own parent`);
  const ancestors = db.prepare(`
    WITH RECURSIVE up(id) AS (SELECT value FROM json_each(?) UNION SELECT gp.parent_id FROM group_parents gp JOIN up ON gp.group_id = up.id)
    SELECT 1 FROM up WHERE id = ?`);
  if (ancestors.get(JSON.stringify(parents), groupId)) {
    throw badRequest(`ParentGroups: making these groups parents of group ${groupId} would create a cycle`);
  }
}

function setParents(db: Db, groupId: number, parents: number[]): void {
  db.prepare('DELETE FROM group_parents WHERE group_id = ?').run(groupId);
  const ins = db.prepare('INSERT INTO group_parents (group_id, parent_id) VALUES (?, ?)');
  for (const p of parents) ins.run(groupId, p);
}

/** Creates a group from a request body; answers its id. Duplicate name → 409; bad parents → 400. */
export function createGroup(db: Db, body: unknown): number {
  const input = readInput(body, true);
  return db.transaction(() => {
    assertNameFree(db, input.name!, null);
    const parents = input.parents ?? [];
    assertParents(db, null, parents);
    const id = Number(db.prepare('INSERT INTO groups (name, description) VALUES (?, ?)').run(input.name!, input.description ?? null).lastInsertRowid);
    setParents(db, id, parents);
    recordAuditSync(db, { action: 'created', entity: 'groups', entityId: id, changes: { Name: input.name!, Description: input.description ?? null, ParentGroups: parents } });
    return id;
  }).immediate();
}

/** Updates the fields present in the body (PUT and PATCH, CONTRACT §3/§8); audited with the fields that changed. */
export function updateGroup(db: Db, id: number, body: unknown, ifMatch?: string): void {
  const input = readInput(body, false);
  const bodyId = (body as Record<string, unknown>).GroupId;
  if (bodyId !== undefined && bodyId !== id) throw badRequest(`GroupId in the body (${String(bodyId)}) does not match the key ${id}`);
  db.transaction(() => {
    const current = getGroup(db, id);
    checkVersion(current.version, ifMatch);
    if (input.name !== undefined) assertNameFree(db, input.name, id);
    if (input.parents !== undefined) {
      assertParents(db, id, input.parents);
      setParents(db, id, input.parents);
    }
    const after = {
      Name: input.name ?? current.Name,
      Description: input.description === undefined ? current.Description : input.description,
      ParentGroups: input.parents ?? current.ParentGroups,
    };
    db.prepare('UPDATE groups SET name = ?, description = ?, version = version + 1 WHERE id = ?').run(after.Name, after.Description, id);
    const before = { Name: current.Name, Description: current.Description, ParentGroups: current.ParentGroups };
    recordAuditSync(db, { action: 'updated', entity: 'groups', entityId: id, changes: diffChanges(before, after) });
  }).immediate();
}

/**
 * Deletes a group with its memberships, nesting and assignments (never its interviewers; an interviewer
 * left without a group returns to the root group). The root group cannot be deleted.
 */
export function deleteGroup(db: Db, id: number, ifMatch?: string): void {
  db.transaction(() => {
    const current = getGroup(db, id);
    checkVersion(current.version, ifMatch);
    if (id === ROOT_GROUP_ID) throw badRequest(`Group ${id} '${current.Name}' is the root group and cannot be deleted`);
    const members = db.prepare('SELECT interviewer_id FROM interviewer_groups WHERE group_id = ?').pluck().all(id) as number[];
    db.prepare('DELETE FROM groups WHERE id = ?').run(id);
    const orphanToRoot = db.prepare(`INSERT INTO interviewer_groups (interviewer_id, group_id)
      SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM interviewer_groups WHERE interviewer_id = ?)`);
    for (const m of members) orphanToRoot.run(m, ROOT_GROUP_ID, m);
    const { version: _version, GroupId: _id, ...old } = current;
    recordAuditSync(db, { action: 'deleted', entity: 'groups', entityId: id, changes: { ...old, Members: members } });
  }).immediate();
}

/** 404 unless the group exists. */
export function assertGroup(db: Db, id: number): void {
  if (!db.prepare('SELECT 1 FROM groups WHERE id = ?').get(id)) throw notFound(`Group ${id} does not exist`);
}
