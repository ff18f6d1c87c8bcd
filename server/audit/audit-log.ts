/**
 * The audit log (docs/audit.md#audit): who changed what, written inside the transaction of the change itself.
 *
 * The actor of a request is carried in an AsyncLocalStorage set by `bindActor` (mounted after body parsing,
 * because stream callbacks lose the async context); outside any request (the CLI) the actor is `cli`.
 * Services call `await recordAudit(tx, {...})` inside their transaction; it throws when no transaction is open,
 * so an audit row can never be committed apart from its change.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { NextFunction, Request, Response } from 'express';
import type { Queryable } from '../db/store.ts';

/** Who made a change: a key (id null for in-memory keys), a signed-in user, the CLI, or the public unsubscribe page. */
export interface Actor {
  keyId: number | null;
  /** The key's or the user's name, `cli` or `unsubscribe page`. */
  name: string;
  /** The user whose session made the change (docs/audit.md#audit), else null/absent. */
  userId?: number | null;
}

export const CLI_ACTOR: Actor = { keyId: null, name: 'cli' };
export const UNSUBSCRIBE_PAGE_ACTOR: Actor = { keyId: null, name: 'unsubscribe page' };

/** The set names docs/audit.md#audit lists as `Entity`. */
export type AuditEntity =
  | 'blacklist'
  | 'groups'
  | 'interviewers'
  | 'assignments'
  | 'breaktypes'
  | 'extendedstatuses'
  | 'callcenters'
  | 'optout-lists'
  | 'optout-emails'
  | 'optout-domains'
  | 'optout-imports'
  | 'optout-settings'
  | 'settings'
  | 'scrubs'
  | 'keys'
  | 'users'
  | 'sessions';

export interface AuditEntry {
  action: string;
  entity: AuditEntity;
  entityId: string | number | null;
  /** create → the new values; update → `{field: [before, after]}` (see `diffChanges`); delete → the old values. */
  changes: Record<string, unknown>;
}

const actorStore = new AsyncLocalStorage<Actor>();

/** Runs `fn` with `actor` as the author of every audited change it makes (sync or async). */
export function runAs<T>(actor: Actor, fn: () => T): T {
  return actorStore.run(actor, fn);
}

/** The actor of the current request, or `cli` outside any request. */
export function currentActor(): Actor {
  return actorStore.getStore() ?? CLI_ACTOR;
}

/** The actor of a request, taken from its key (for work handed to a worker, where the async context does not reach). */
export function actorOf(req: Request): Actor {
  const p = req.principal;
  return p ? { keyId: p.keyId, name: p.name, userId: p.user?.id ?? null } : currentActor();
}

/** Express middleware: the authenticated key becomes the actor of everything after it. Mount after body parsing. */
export function bindActor(req: Request, _res: Response, next: NextFunction): void {
  if (!req.principal) return next();
  actorStore.run(actorOf(req), next);
}

/** `{field: [before, after]}` for the fields whose values differ (fields absent from `after` are unchanged). */
export function diffChanges(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, [unknown, unknown]> {
  const out: Record<string, [unknown, unknown]> = {};
  for (const [k, v] of Object.entries(after)) {
    const b = before[k] ?? null;
    const a = v ?? null;
    if (JSON.stringify(b) !== JSON.stringify(a)) out[k] = [b, a];
  }
  return out;
}

const INSERT_AUDIT = 'INSERT INTO audit_log (time, actor_key_id, actor_user_id, actor, action, entity, entity_id, changes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)';

/** Appends one audit row; must run inside the transaction that makes the change (`tx` of `store.transaction`). */
export async function recordAudit(tx: Queryable, entry: AuditEntry, now = Date.now(), actor = currentActor()): Promise<void> {
  if (!tx.inTransaction) throw new Error(`audit of ${entry.entity} ${entry.action} outside a transaction`);
  await tx.run(INSERT_AUDIT, [now, actor.keyId, actor.userId ?? null, actor.name, entry.action, entry.entity, entry.entityId === null ? null : String(entry.entityId), JSON.stringify(entry.changes)]);
}
