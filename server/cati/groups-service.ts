import { diffChanges, recordAudit } from '../audit/audit-log.ts';
import type { Queryable, Store } from '../db/store.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { groupAssignmentRows, type AssignmentRecord } from '../events/assignment-events.ts';
import { bodyObject, optIdArray, optString, rejectUnknown, reqString } from './body-fields.ts';
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
export async function parentGroupsOf(db: Queryable, groupIds: readonly number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(groupIds.map((id) => [id, []]));
  if (groupIds.length === 0) return out;
  const rows = await db.all<{ group_id: number; parent_id: number }>(
    `SELECT group_id, parent_id FROM group_parents WHERE group_id IN ${db.dialect.jsonValues('int')} ORDER BY group_id, parent_id`,
    [JSON.stringify(groupIds)],
  );
  for (const r of rows) out.get(r.group_id)?.push(r.parent_id);
  return out;
}

/** One group in wire shape, or a 404. */
export async function getGroup(db: Queryable, id: number): Promise<GroupRow & { version: number }> {
  const row = await db.get<{ id: number; name: string; description: string | null; version: number }>('SELECT id, name, description, version FROM groups WHERE id = ?', [id]);
  if (!row) throw notFound(`Group ${id} does not exist`);
  const parents = (await parentGroupsOf(db, [id])).get(id)!;
  return { GroupId: row.id, Name: row.name, Description: row.description, ParentGroups: parents, version: row.version };
}

async function assertNameFree(db: Queryable, name: string, exceptId: number | null): Promise<void> {
  const other = await db.value<number>(`SELECT id FROM groups WHERE name = ? AND NOT (${db.dialect.isSame('id', '?')})`, [name, exceptId]);
  if (other !== undefined) {
    throw conflict(`A group named '${name}' already exists`, [{ code: 'ExistingId', target: 'Id', message: String(other) }]);
  }
}

/** 400 when a parent is unknown, or when making them parents of `groupId` would create a cycle. */
async function assertParents(db: Queryable, groupId: number | null, parents: number[]): Promise<void> {
  const missing = await missingGroup(db, parents);
  if (missing !== undefined) throw badRequest(`ParentGroups: group ${missing} does not exist`);
  if (groupId === null) return;
  if (parents.includes(groupId)) throw badRequest(`ParentGroups: group ${groupId} cannot be its own parent`);
  const cycle = await db.value(
    `WITH RECURSIVE up(id) AS (SELECT * FROM ${db.dialect.jsonValues('int')} AS p UNION SELECT gp.parent_id FROM group_parents gp JOIN up ON gp.group_id = up.id)
    SELECT 1 FROM up WHERE id = ?`,
    [JSON.stringify(parents), groupId],
  );
  if (cycle !== undefined) {
    throw badRequest(`ParentGroups: making these groups parents of group ${groupId} would create a cycle`);
  }
}

/** The first of `ids` (in order) that is not a group, or undefined when all exist (one query). */
export async function missingGroup(db: Queryable, ids: readonly number[]): Promise<number | undefined> {
  if (ids.length === 0) return undefined;
  const found = new Set(await db.column<number>(`SELECT id FROM groups WHERE id IN ${db.dialect.jsonValues('int')}`, [JSON.stringify(ids)]));
  return ids.find((id) => !found.has(id));
}

async function setParents(db: Queryable, groupId: number, parents: number[]): Promise<void> {
  await db.run('DELETE FROM group_parents WHERE group_id = ?', [groupId]);
  for (const p of parents) await db.run('INSERT INTO group_parents (group_id, parent_id) VALUES (?, ?)', [groupId, p]);
}

/** Creates a group from a request body; answers its id. Duplicate name → 409; bad parents → 400. */
export async function createGroup(store: Store, body: unknown): Promise<number> {
  const input = readInput(body, true);
  return store.transaction(async (tx) => {
    await assertNameFree(tx, input.name!, null);
    const parents = input.parents ?? [];
    await assertParents(tx, null, parents);
    const id = (await tx.value<number>('INSERT INTO groups (name, description) VALUES (?, ?) RETURNING id', [input.name!, input.description ?? null]))!;
    await setParents(tx, id, parents);
    await recordAudit(tx, { action: 'created', entity: 'groups', entityId: id, changes: { Name: input.name!, Description: input.description ?? null, ParentGroups: parents } });
    return id;
  });
}

/** Updates the fields present in the body (PUT and PATCH, docs/cati-api.md#semantics, docs/cati-api.md#exports); audited with the fields that changed. */
export async function updateGroup(store: Store, id: number, body: unknown, ifMatch?: string): Promise<void> {
  const input = readInput(body, false);
  const bodyId = (body as Record<string, unknown>).GroupId;
  if (bodyId !== undefined && bodyId !== id) throw badRequest(`GroupId in the body (${String(bodyId)}) does not match the key ${id}`);
  await store.transaction(async (tx) => {
    const current = await getGroup(tx, id);
    checkVersion(current.version, ifMatch);
    if (input.name !== undefined) await assertNameFree(tx, input.name, id);
    if (input.parents !== undefined) {
      await assertParents(tx, id, input.parents);
      await setParents(tx, id, input.parents);
    }
    const after = {
      Name: input.name ?? current.Name,
      Description: input.description === undefined ? current.Description : input.description,
      ParentGroups: input.parents ?? current.ParentGroups,
    };
    await tx.run('UPDATE groups SET name = ?, description = ?, version = version + 1 WHERE id = ?', [after.Name, after.Description, id]);
    const before = { Name: current.Name, Description: current.Description, ParentGroups: current.ParentGroups };
    await recordAudit(tx, { action: 'updated', entity: 'groups', entityId: id, changes: diffChanges(before, after) });
  });
}

/**
 * Deletes a group with its memberships, nesting and assignments (never its interviewers; an interviewer
 * left without a group returns to the root group). The root group cannot be deleted. Answers the
 * assignment rows that went with it (read in the same transaction), for the events.
 */
export async function deleteGroup(store: Store, id: number, ifMatch?: string): Promise<AssignmentRecord[]> {
  return store.transaction(async (tx) => {
    const current = await getGroup(tx, id);
    checkVersion(current.version, ifMatch);
    if (id === ROOT_GROUP_ID) throw badRequest(`Group ${id} '${current.Name}' is the root group and cannot be deleted`);
    const assignments = await groupAssignmentRows(tx, id);
    const members = await tx.column<number>('SELECT interviewer_id FROM interviewer_groups WHERE group_id = ?', [id]);
    await tx.run('DELETE FROM groups WHERE id = ?', [id]);
    await tx.run(
      `INSERT INTO interviewer_groups (interviewer_id, group_id)
      SELECT i.id, CAST(? AS BIGINT) FROM interviewers i
      WHERE i.id IN ${tx.dialect.jsonValues('int')} AND NOT EXISTS (SELECT 1 FROM interviewer_groups m WHERE m.interviewer_id = i.id)`,
      [ROOT_GROUP_ID, JSON.stringify(members)],
    );
    const { version: _version, GroupId: _id, ...old } = current;
    await recordAudit(tx, { action: 'deleted', entity: 'groups', entityId: id, changes: { ...old, Members: members } });
    return assignments;
  });
}

/** 404 unless the group exists. */
export async function assertGroup(db: Queryable, id: number): Promise<void> {
  if ((await db.value('SELECT 1 FROM groups WHERE id = ?', [id])) === undefined) throw notFound(`Group ${id} does not exist`);
}
