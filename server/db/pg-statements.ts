/**
 * Named prepared statements on PostgreSQL, with a bounded cache per connection: PostgreSQL parses and analyses a
 * named statement once per connection (and, after a few runs, may keep a generic plan), where an unnamed one is
 * parsed, analysed and planned on every run. Each connection remembers at most STATEMENTS_PER_CONNECTION SQL
 * texts (least recently used first out); a text leaving the cache is DEALLOCATEd on its connection. A name is a
 * hash of the SQL text plus a serial number of the connection, so a text that comes back after leaving gets a
 * new name and never meets its old, deallocated one.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';

/** Distinct SQL texts prepared on one connection at most. */
export const STATEMENTS_PER_CONNECTION = 200;

interface Cache {
  /** SQL text → statement name, least recently used first. */
  names: Map<string, string>;
  serial: number;
}

const caches = new WeakMap<pg.ClientBase, Cache>();

/** What node-postgres remembers of the statements it prepared on a connection (its own bookkeeping). */
function parsedStatements(client: pg.ClientBase): Record<string, string> | undefined {
  return (client as unknown as { connection?: { parsedStatements?: Record<string, string> } }).connection?.parsedStatements;
}

/** Queues DEALLOCATE of `name` on `client` (after what is queued there already) and forgets it once done. */
function deallocate(client: pg.ClientBase, name: string): void {
  client.query(`DEALLOCATE ${name}`).then(
    () => delete parsedStatements(client)?.[name],
    () => undefined, // the connection broke: its statements went with it
  );
}

/**
 * The name to run `text` under on `client`, preparing it there on first use; undefined (an unnamed statement)
 * when the cache is full and `inTransaction` (no DEALLOCATE inside a transaction, which may be aborted).
 */
export function statementName(client: pg.ClientBase, text: string, inTransaction: boolean, max = STATEMENTS_PER_CONNECTION): string | undefined {
  let cache = caches.get(client);
  if (cache === undefined) caches.set(client, (cache = { names: new Map(), serial: 0 }));
  const known = cache.names.get(text);
  if (known !== undefined) {
    cache.names.delete(text);
    cache.names.set(text, known);
    return known;
  }
  if (cache.names.size >= max) {
    if (inTransaction) return undefined;
    const [oldText, oldName] = cache.names.entries().next().value!;
    cache.names.delete(oldText);
    deallocate(client, oldName);
  }
  const name = `q${createHash('sha1').update(text).digest('hex').slice(0, 16)}_${(++cache.serial).toString(36)}`;
  cache.names.set(text, name);
  return name;
}

/**
 * Forgets `text`'s statement on `client` (PostgreSQL refused to run it again: "cached plan must not change result
 * type" after a table it reads changed); deallocated unless `inTransaction`, else left to the connection's end.
 */
export function forgetStatement(client: pg.ClientBase, text: string, inTransaction: boolean): void {
  const cache = caches.get(client);
  const name = cache?.names.get(text);
  if (cache === undefined || name === undefined) return;
  cache.names.delete(text);
  if (!inTransaction) deallocate(client, name);
}

/** PostgreSQL's feature_not_supported with "cached plan must not change result type": the statement must be prepared again. */
export function isStalePlan(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return e?.code === '0A000' && typeof e.message === 'string' && e.message.includes('cached plan');
}
