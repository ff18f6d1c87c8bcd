/**
 * SQLite's bulk insert, the main thread's side (db/bulk-insert.ts). Values fed by a worker thread are staged on
 * that thread's own connection (sqlite/bulk-stage.ts); `commit` asks it to begin and insert them, runs the
 * caller's `finish` here with a Queryable whose statements go to that transaction over the link's port, then
 * asks it to commit. Values fed on the main thread (`add`, small imports) take the portable path instead: one
 * transaction of this store's own connection.
 */
import { MessageChannel } from 'node:worker_threads';
import { collectedBulkInsert } from '../bulk-insert.ts';
import { asDatabaseError } from '../database-error.ts';
import { pastDeadline, type BulkInsert, type BulkOptions, type BulkTarget } from '../bulk-target.ts';
import { sqliteDialect } from '../dialect.ts';
import type { FeedBatch } from '../change-feed.ts';
import type { Queryable, Store } from '../store.ts';
import type { QueryOp, StageReply, StageRequest } from './bulk-stage.ts';

/** An error of the worker's connection, typed by SQLite's code (db/database-error.ts). */
const asError = (m: Extract<StageReply, { type: 'failed' }>) => asDatabaseError(Object.assign(new Error(m.message), { code: m.code }));

/** `store.bulkInsert` of a SqliteStore on `file`; `committed` takes the events `finish` published, once the write committed. */
export function sqliteBulkInsert(store: Store, file: string, target: BulkTarget, options: BulkOptions, committed: (batches: FeedBatch[]) => void): BulkInsert {
  const { port1, port2 } = new MessageChannel();
  port1.unref();
  let local: BulkInsert | undefined;
  let closed = false;
  /** Replies not yet taken, and who waits for the next one. */
  const waiting: ((m: StageReply) => void)[] = [];
  const queued: StageReply[] = [];
  port1.on('message', (m: StageReply) => {
    const next = waiting.shift();
    if (next) next(m);
    else queued.push(m);
  });
  const over: StageReply = { type: 'failed', message: 'The bulk insert was aborted' };
  const reply = () =>
    new Promise<StageReply>((resolve) => {
      if (queued.length) resolve(queued.shift()!);
      else if (closed) resolve(over);
      else waiting.push(resolve);
    });
  const ask = (m: StageRequest) => port1.postMessage(m);
  const close = () => {
    if (closed) return;
    closed = true;
    port1.close();
    // Whoever still waits for the worker (it died, or the caller gave up) hears that the bulk insert is over.
    for (const waiter of waiting.splice(0)) waiter(over);
  };
  let nextId = 1;
  const query = async (op: QueryOp, sql: string, params?: readonly unknown[]): Promise<unknown> => {
    const id = nextId++;
    ask({ type: 'query', id, op, sql, params: [...(params ?? [])] });
    const m = await reply();
    if (m.type === 'answer' && m.id === id) return m.result;
    if (m.type === 'failed') throw asError(m);
    throw new Error(`Bulk insert: unexpected reply ${m.type} to a statement`);
  };
  const published: FeedBatch[] = [];
  const tx: Queryable = {
    engine: 'sqlite',
    dialect: sqliteDialect,
    inTransaction: true,
    all: (s, p) => query('all', s, p) as never,
    get: (s, p) => query('get', s, p) as never,
    value: (s, p) => query('value', s, p) as never,
    column: (s, p) => query('column', s, p) as never,
    rows: (s, p) => query('rows', s, p) as never,
    run: (s, p) => query('run', s, p) as never,
    exec: (s) => query('exec', s) as never,
    changeVersion: () => Promise.resolve(null),
    publish: (batch) => {
      published.push(batch);
      return Promise.resolve();
    },
  };
  // Statements of `finish` run one at a time, in order: each waits for the previous one's answer.
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const p = turn.then(work, work);
    turn = p.catch(() => undefined);
    return p;
  };
  for (const op of ['all', 'get', 'value', 'column', 'rows', 'run', 'exec'] as const) {
    const direct = tx[op] as (...a: unknown[]) => Promise<unknown>;
    (tx as unknown as Record<string, unknown>)[op] = (...a: unknown[]) => inTurn(() => direct(...a));
  }

  return {
    link: { target, file, busyTimeoutMs: options.busyTimeoutMs, port: port2 },
    add(values) {
      (local ??= collectedBulkInsert(store, target, options)).add(values);
    },
    end() {
      (local ??= collectedBulkInsert(store, target, options)).end();
    },
    async commit(fixed, finish, deadline) {
      if (local) {
        close();
        return local.commit(fixed, finish, deadline);
      }
      if (closed) throw new Error('The bulk insert was aborted');
      const fed = await reply();
      if (fed.type === 'failed') throw asError(fed);
      if (fed.type !== 'fed') throw new Error(`Bulk insert: unexpected reply ${fed.type} before the write`);
      ask({ type: 'begin', fixed });
      const inserted = await reply();
      if (inserted.type === 'failed') {
        close();
        throw asError(inserted);
      }
      if (inserted.type !== 'inserted') throw new Error(`Bulk insert: unexpected reply ${inserted.type} to begin`);
      try {
        if (Date.now() > deadline) throw pastDeadline();
        const out = await finish(tx, inserted.count);
        await turn;
        if (Date.now() > deadline) throw pastDeadline();
        ask({ type: 'commit' });
        const done = await reply();
        if (done.type === 'failed') throw asError(done);
        if (published.length) committed(published);
        return out;
      } catch (err) {
        if (!closed) ask({ type: 'rollback' });
        throw err;
      } finally {
        close();
      }
    },
    abort() {
      local?.abort();
      if (!closed && !local) ask({ type: 'rollback' });
      close();
    },
  };
}
