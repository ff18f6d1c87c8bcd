/**
 * SQLite's bulk insert, the worker thread's side (db/bulk-insert.ts): the thread that produces the values opens
 * a connection of its own to the database file (kept for the thread's life), stages the values in a TEMP table
 * of that connection (no lock on the database; the JS heap holds one batch at a time), and on the main thread's
 * word (sqlite/bulk-remote.ts, over the link's port) writes them in ONE short immediate transaction: a single
 * INSERT OR IGNORE … SELECT … ORDER BY (SQLite sorts, so the unique index is filled in order, and it drops
 * duplicates, stored before or fed twice), then the statements of the caller's `finish`, then COMMIT.
 */
import type { MessagePort } from 'node:worker_threads';
import type { Statement } from 'better-sqlite3';
import { targetColumns, type BulkFeed, type BulkLink } from '../bulk-target.ts';
import { openDatabase, type Db } from '../open.ts';

/** Values one staging INSERT binds. */
const STAGE_BATCH = 500;

/** Main thread → worker, over the link's port. */
export type StageRequest =
  | { type: 'begin'; fixed: readonly (string | number)[] }
  | { type: 'query'; id: number; op: QueryOp; sql: string; params: unknown[] }
  | { type: 'commit' }
  | { type: 'rollback' };

/** How a statement of `finish` wants its answer (the Queryable method that sent it). */
export type QueryOp = 'all' | 'get' | 'value' | 'column' | 'rows' | 'run' | 'exec';

/** Worker → main thread. A failure carries the SQLite error's code (SQLITE_BUSY, SQLITE_FULL, …) and message. */
export type StageReply =
  | { type: 'fed' }
  | { type: 'inserted'; count: number }
  | { type: 'answer'; id: number; result: unknown }
  | { type: 'committed' }
  | { type: 'failed'; id?: number; code?: string; message: string };

const connections = new Map<string, Db>();

function connection(file: string): Db {
  let db = connections.get(file);
  if (db?.open) return db;
  db = openDatabase(file, { migrate: false });
  // This connection checkpoints the WAL itself, after the commit: the client does not wait for it, and the main
  // thread's connection does not inherit a large WAL to copy back on its next write.
  db.pragma('wal_autocheckpoint = 0');
  connections.set(file, db);
  return db;
}

/**
 * Closes this thread's connections (rolling back anything unfinished): a thread told to stop calls it before it
 * leaves. A failed bulk insert calls it too, so the next one starts on a fresh connection.
 */
export function closeBulkConnections(): void {
  for (const db of connections.values()) {
    try {
      if (db.open) db.close();
    } catch {
      // closing a broken connection: nothing more to release
    }
  }
  connections.clear();
}

const failed = (err: unknown, id?: number): StageReply => ({
  type: 'failed',
  id,
  code: typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : undefined,
  message: err instanceof Error ? err.message : String(err),
});

/** Answers one statement of `finish` the way the Queryable method `op` answers. */
function answer(db: Db, op: QueryOp, sql: string, params: unknown[]): unknown {
  if (op === 'exec') return void db.exec(sql);
  const s: Statement<unknown[]> = db.prepare<unknown[]>(sql);
  if (op === 'run') return { changes: s.run(...params).changes };
  if (op === 'value') return s.pluck().get(...params);
  if (op === 'column') return s.pluck().all(...params);
  if (op === 'rows') return s.raw().all(...params);
  return op === 'get' ? s.get(...params) : s.all(...params);
}

/** The worker's end of a SQLite bulk insert (openBulkFeed with a file). */
export function stageOnOwnConnection(link: BulkLink): BulkFeed {
  const db = connection(link.file!);
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(link.busyTimeoutMs))}`);
  const { table } = link.target;
  const columns = targetColumns(link.target);
  db.exec('CREATE TEMP TABLE IF NOT EXISTS bulk_values (v NOT NULL); DELETE FROM temp.bulk_values;');
  const stageMany = db.prepare(`INSERT INTO temp.bulk_values (v) VALUES ${Array.from({ length: STAGE_BATCH }, () => '(?)').join(', ')}`);
  const stageOne = db.prepare('INSERT INTO temp.bulk_values (v) VALUES (?)');
  const port: MessagePort = link.port;
  const send = (m: StageReply) => port.postMessage(m);
  let done = false;
  const finish = () => {
    done = true;
    port.close();
    if (db.open) db.exec('DROP TABLE IF EXISTS temp.bulk_values');
  };
  const rollback = () => {
    if (db.open && db.inTransaction) db.exec('ROLLBACK');
  };
  port.on('message', (m: StageRequest) => {
    try {
      if (m.type === 'begin') {
        db.exec('BEGIN IMMEDIATE'); // waits up to busy_timeout for the write lock, in this thread
        const fixed = link.target.fixed.map(() => '?').join(', ');
        const insert = `INSERT OR IGNORE INTO ${table} (${columns.join(', ')}) SELECT ${fixed}${fixed ? ', ' : ''}v FROM temp.bulk_values ORDER BY v`;
        send({ type: 'inserted', count: db.prepare(insert).run(...m.fixed).changes });
      } else if (m.type === 'query') {
        try {
          send({ type: 'answer', id: m.id, result: answer(db, m.op, m.sql, m.params) });
        } catch (err) {
          send(failed(err, m.id));
        }
      } else if (m.type === 'commit') {
        db.exec('COMMIT');
        send({ type: 'committed' });
        finish();
        try {
          db.pragma('wal_checkpoint(PASSIVE)');
        } catch {
          // e.g. SQLITE_FULL on a full disk: the WAL keeps the committed rows; a later checkpoint folds them in
        }
      } else {
        rollback();
        finish();
      }
    } catch (err) {
      try {
        rollback();
      } finally {
        send(failed(err));
        finish();
      }
    }
  });
  // The main thread gave up (abort): nothing of this feed may stay behind.
  port.once('close', () => {
    if (done) return;
    rollback();
    finish();
  });
  return {
    add(values) {
      let i = 0;
      for (; i + STAGE_BATCH <= values.length; i += STAGE_BATCH) stageMany.run(...values.slice(i, i + STAGE_BATCH));
      for (; i < values.length; i++) stageOne.run(values[i]);
    },
    end: () => send({ type: 'fed' }),
  };
}
