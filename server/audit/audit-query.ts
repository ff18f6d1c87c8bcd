/**
 * Reading the audit log (docs/audit.md#audit): the query of `GET /admin/audit` parsed once into a typed object,
 * and keyset pages newest first over the (time, id) index. Parameterised SQL only.
 */
import { parseIsoTime } from '../lib/time.ts';
import type { Queryable } from '../db/store.ts';
import { badRequest } from '../errors.ts';
import type { AuditRow, ChangeNames } from '../../common/audit-row.ts';
import { auditNames } from './audit-names.ts';

export const DEFAULT_AUDIT_PAGE = 100;
export const MAX_AUDIT_PAGE = 1000;

/** Where a page starts: strictly older than this row (newest first). */
export interface AuditCursor {
  time: number;
  id: number;
}

export interface AuditQuery {
  from?: number;
  to?: number;
  entity?: string;
  /** Rows of this entity left out (the Activity screen hides `sessions` unless asked). */
  excludeEntity?: string;
  actor?: string;
  top: number;
  after?: AuditCursor;
  format: 'json' | 'csv';
}

export type { AuditRow };

const KNOWN = ['from', 'to', 'entity', 'excludeentity', 'actor', '$top', '$skiptoken', '$format'];

function time(name: string, value: string): number {
  const ms = parseIsoTime(value);
  if (ms === undefined) throw badRequest(`'${name}' must be an ISO 8601 date-time such as 2026-11-02T09:15:00Z, not '${value}'`);
  return ms;
}

/** The opaque `$skiptoken` of the page after `row`. */
export function encodeCursor(row: AuditCursor): string {
  return Buffer.from(`${row.time}.${row.id}`).toString('base64url');
}

function decodeCursor(token: string): AuditCursor {
  const m = /^(\d{1,16})\.(\d{1,16})$/.exec(/^[A-Za-z0-9_-]{1,64}$/.test(token) ? Buffer.from(token, 'base64url').toString() : '');
  if (!m) throw badRequest('Invalid $skiptoken: use the @odata.nextLink of the previous page');
  return { time: Number(m[1]), id: Number(m[2]) };
}

/** Parses the query parameters (names lowercased, each at most once); anything unknown or malformed → 400. */
export function parseAuditQuery(params: Map<string, string>): AuditQuery {
  for (const name of params.keys()) {
    if (!KNOWN.includes(name)) throw badRequest(`Unknown query parameter '${name}'; the audit log takes ${KNOWN.join(', ')}`);
  }
  const q: AuditQuery = { top: DEFAULT_AUDIT_PAGE, format: 'json' };
  const from = params.get('from');
  const to = params.get('to');
  if (from !== undefined) q.from = time('from', from);
  if (to !== undefined) q.to = time('to', to);
  const entity = params.get('entity');
  if (entity !== undefined && entity !== '') q.entity = entity;
  const excluded = params.get('excludeentity');
  if (excluded !== undefined && excluded !== '') q.excludeEntity = excluded;
  const actor = params.get('actor');
  if (actor !== undefined && actor !== '') q.actor = actor;
  const top = params.get('$top');
  if (top !== undefined) {
    if (!/^\d{1,7}$/.test(top) || Number(top) < 1 || Number(top) > MAX_AUDIT_PAGE) {
      throw badRequest(`$top must be a whole number from 1 to ${MAX_AUDIT_PAGE}, not '${top}'`);
    }
    q.top = Number(top);
  }
  const token = params.get('$skiptoken');
  if (token !== undefined) q.after = decodeCursor(token);
  const format = params.get('$format');
  if (format !== undefined) {
    const f = format.toLowerCase();
    if (f === 'csv' || f === 'text/csv') q.format = 'csv';
    else if (f !== 'json' && f !== 'application/json') throw badRequest(`$format must be json or csv, not '${format}'`);
  }
  return q;
}

/** A row as stored (`changes` is JSON text). */
export interface StoredRow {
  id: number;
  time: number;
  actor_key_id: number | null;
  actor_user_id: number | null;
  actor: string;
  action: string;
  entity: string;
  entity_id: string | null;
  changes: string;
}

/** The WHERE clause and its parameters for the filters (and the cursor, when given). */
function where(q: AuditQuery, after: AuditCursor | undefined): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...values: unknown[]) => {
    parts.push(sql);
    params.push(...values);
  };
  if (q.from !== undefined) add('time >= ?', q.from);
  if (q.to !== undefined) add('time < ?', q.to);
  if (q.entity !== undefined) add('entity = ?', q.entity);
  if (q.excludeEntity !== undefined) add('entity <> ?', q.excludeEntity);
  if (q.actor !== undefined) {
    if (/^\d{1,15}$/.test(q.actor)) add('(actor_key_id = ? OR actor = ?)', Number(q.actor), q.actor);
    else add('actor = ?', q.actor);
  }
  if (after) add('(time, id) < (?, ?)', after.time, after.id); // a row value: one range on the (time, id) index
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}

function toRow(r: StoredRow, names: { EntityName: string | null; ChangeNames: ChangeNames }): AuditRow {
  return {
    Id: r.id,
    Time: new Date(r.time).toISOString(),
    ActorKeyId: r.actor_key_id,
    ActorUserId: r.actor_user_id,
    Actor: r.actor,
    Action: r.action,
    Entity: r.entity,
    EntityId: r.entity_id,
    Changes: JSON.parse(r.changes) as Record<string, unknown>,
    ...names,
  };
}

/** The names of a page of stored rows (docs/audit.md#names), in order. */
export function storedRowNames(db: Queryable, rows: readonly StoredRow[]): ReturnType<typeof auditNames> {
  return auditNames(
    db,
    rows.map((r) => ({ entity: r.entity, entityId: r.entity_id, changes: JSON.parse(r.changes) as Record<string, unknown> })),
  );
}

/** Stored rows of one page, newest first (time, then id, descending), after `after`; `next` is the following page's cursor. */
export async function storedPage(db: Queryable, q: AuditQuery, after: AuditCursor | undefined, top: number): Promise<{ rows: StoredRow[]; next?: AuditCursor }> {
  const w = where(q, after);
  const stored = await db.all<StoredRow>(
    `SELECT id, time, actor_key_id, actor_user_id, actor, action, entity, entity_id, changes FROM audit_log ${w.sql} ORDER BY time DESC, id DESC LIMIT ?`,
    [...w.params, top + 1],
  );
  const more = stored.length > top;
  const rows = more ? stored.slice(0, top) : stored;
  const last = rows.at(-1);
  return { rows, next: more && last ? { time: last.time, id: last.id } : undefined };
}

/** One page of the API's rows (`$top` rows after `$skiptoken`), with the cursor of the next page when there is one. */
export async function auditPage(db: Queryable, q: AuditQuery): Promise<{ rows: AuditRow[]; next?: AuditCursor }> {
  const page = await storedPage(db, q, q.after, q.top);
  const names = await storedRowNames(db, page.rows);
  return { rows: page.rows.map((r, i) => toRow(r, names[i]!)), next: page.next };
}
