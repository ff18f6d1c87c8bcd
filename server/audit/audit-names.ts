/**
 * Names beside the ids of the audit log (docs/audit.md#names): each row's `EntityName` (the interviewer's, group's,
 * survey's, call centre's or person's name its `Entity`/`EntityId` points at) and `ChangeNames` (the names of the
 * group, interviewer, survey and call-centre ids inside `Changes`, by kind and id). Names are today's, looked up
 * once per page and kind; a deleted thing keeps the name its audit row recorded, else it has none.
 */
import { AUDIT_ID_FIELDS as ID_FIELDS, type ChangeNames, type NamedKind } from '../../common/audit-row.ts';
import type { Queryable } from '../db/store.ts';

/** The kinds of ids named, each with its table and name expression. */
const KINDS = {
  groups: { sql: 'SELECT id, name FROM groups WHERE id IN', type: 'int' },
  interviewers: { sql: 'SELECT id, COALESCE(display_name, name) AS name FROM interviewers WHERE id IN', type: 'int' },
  surveys: { sql: 'SELECT id, name FROM surveys WHERE id IN', type: 'text' },
  callcenters: { sql: 'SELECT id, name FROM call_centers WHERE id IN', type: 'int' },
  users: { sql: 'SELECT id, display_name AS name FROM users WHERE id IN', type: 'int' },
} as const satisfies Record<NamedKind, { sql: string; type: string }>;


/** What a row needs of its stored form. */
export interface NamedSource {
  entity: string;
  entityId: string | null;
  changes: Record<string, unknown>;
}

/** The kind and id an audit row's entity names (`assignments` rows name `interviewers(15)` or `groups(2)`). */
function entityTarget(r: NamedSource): { kind: NamedKind; id: string } | undefined {
  if (r.entityId === null) return undefined;
  if (r.entity === 'assignments') {
    const m = /^(interviewers|groups)\((\d+)\)$/.exec(r.entityId);
    return m ? { kind: m[1] as NamedKind, id: m[2]! } : undefined;
  }
  return r.entity in KINDS ? { kind: r.entity as NamedKind, id: r.entityId } : undefined;
}

/** Every id inside `value` (numbers, strings, arrays, `[before, after]` pairs, nested objects) under its field's kind. */
function collectIds(value: unknown, kind: NamedKind | undefined, into: (kind: NamedKind, id: string) => void): void {
  if (Array.isArray(value)) for (const v of value) collectIds(v, kind, into);
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) collectIds(v, ID_FIELDS[k], into);
  else if (kind && (typeof value === 'number' || (typeof value === 'string' && value !== ''))) into(kind, String(value));
}

/** The ids of each kind that one row refers to in its Changes. */
function changeIds(r: NamedSource): Map<NamedKind, Set<string>> {
  const out = new Map<NamedKind, Set<string>>();
  collectIds(r.changes, undefined, (kind, id) => (out.get(kind) ?? out.set(kind, new Set()).get(kind)!).add(id));
  return out;
}

/** Looks up today's names of the ids of each kind (one statement per kind). */
async function lookUp(db: Queryable, wanted: Map<NamedKind, Set<string>>): Promise<Map<NamedKind, Map<string, string>>> {
  const found = new Map<NamedKind, Map<string, string>>();
  for (const [kind, ids] of wanted) {
    const k = KINDS[kind];
    const list = [...ids].filter((id) => k.type === 'text' || /^\d{1,15}$/.test(id)).map((id) => (k.type === 'int' ? Number(id) : id));
    if (list.length === 0) continue;
    const rows = await db.all<{ id: number | string; name: string | null }>(`${k.sql} ${db.dialect.jsonValues(k.type)}`, [JSON.stringify(list)]);
    found.set(kind, new Map(rows.filter((r) => r.name !== null).map((r) => [String(r.id), r.name!])));
  }
  return found;
}

/** `EntityName` and `ChangeNames` of each row, in order. */
export async function auditNames(db: Queryable, rows: readonly NamedSource[]): Promise<{ EntityName: string | null; ChangeNames: ChangeNames }[]> {
  const perRow = rows.map((r) => ({ target: entityTarget(r), ids: changeIds(r) }));
  const wanted = new Map<NamedKind, Set<string>>();
  const want = (kind: NamedKind, id: string) => (wanted.get(kind) ?? wanted.set(kind, new Set()).get(kind)!).add(id);
  for (const { target, ids } of perRow) {
    if (target) want(target.kind, target.id);
    for (const [kind, set] of ids) for (const id of set) want(kind, id);
  }
  const names = wanted.size ? await lookUp(db, wanted) : new Map<NamedKind, Map<string, string>>();
  return perRow.map(({ target, ids }, i) => {
    const recorded = rows[i]!.changes.Name;
    const current = target ? names.get(target.kind)?.get(target.id) : undefined;
    const EntityName = current ?? (target && rows[i]!.entity !== 'assignments' && typeof recorded === 'string' ? recorded : null);
    const ChangeNames: ChangeNames = {};
    for (const [kind, set] of ids) {
      const named = [...set].flatMap((id) => {
        const name = names.get(kind)?.get(id);
        return name === undefined ? [] : [[id, name] as const];
      });
      if (named.length) ChangeNames[kind] = Object.fromEntries(named);
    }
    return { EntityName, ChangeNames };
  });
}
