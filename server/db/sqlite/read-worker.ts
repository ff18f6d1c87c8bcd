/**
 * Entry of the read worker (read-pool.ts): a read-only SQLite connection of its own that runs the heavy reads
 * of SqliteStore (client queries that scan or aggregate a large table), so an aggregation over a million rows never holds the main thread's
 * event loop (docs/limits.md#event-loop). Statements come compiled and parameterised; rows go back as plain objects, or as arrays when asked.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Statement } from 'better-sqlite3';
import { openDatabase } from '../open.ts';
import type { ReadReply, ReadRequest } from './read-pool.ts';

const db = openDatabase((workerData as { dbFile: string }).dbFile, { readonly: true, migrate: false });
const statements = new Map<string, Statement<unknown[]>>();

function prepared(text: string): Statement<unknown[]> {
  let stmt = statements.get(text);
  if (!stmt) {
    if (statements.size >= 200) statements.delete(statements.keys().next().value!);
    statements.set(text, (stmt = db.prepare<unknown[]>(text)));
  }
  return stmt;
}

parentPort!.on('message', (req: ReadRequest) => {
  let reply: ReadReply;
  try {
    reply = { id: req.id, rows: prepared(req.rows.sql).raw(req.raw === true).all(...req.rows.params) as Record<string, unknown>[] | unknown[][] };
  } catch (err) {
    reply = { id: req.id, error: err instanceof Error ? err.message : String(err) };
  }
  parentPort!.postMessage(reply);
});
