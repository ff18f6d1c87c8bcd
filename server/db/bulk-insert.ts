/**
 * The bulk-insert seam: one interface for writing a large feed of values into one table, all or
 * nothing, whatever the engine. The caller (the opt-out import) says WHAT is written — the table, the columns
 * every row shares, the column each value fills, and what its `finish` writes in the same transaction (its
 * audit row, its counts); the Store says HOW (`Store.bulkInsert`):
 *
 * - SQLite (sqlite/bulk-stage.ts, sqlite/bulk-remote.ts): the worker thread that produces the values opens a
 *   connection of its own and stages them in a TEMP table of it (no lock on the database, no copy to the main
 *   thread); `commit` then runs one short immediate transaction on that connection: one sorted
 *   INSERT OR IGNORE … SELECT, then `finish`, whose statements the main thread sends to the worker's
 *   transaction.
 * - Any other Store (PostgreSQL; `collectedBulkInsert` below): the values come to the main thread and `commit`
 *   writes them in one `store.transaction` through insertMany (COPY into a staging table, INSERT … ON CONFLICT
 *   DO NOTHING), then `finish`.
 *
 * Values are fed either from a worker thread (it is handed `link` and opens it with `openBulkFeed`) or from the
 * main thread (`add`), never both.
 */
import { MessageChannel } from 'node:worker_threads';
import { insertMany } from './bulk.ts';
import { pastDeadline, targetColumns, type BulkFeed, type BulkInsert, type BulkLink, type BulkOptions, type BulkTarget, type CollectedMessage } from './bulk-target.ts';
import { closeBulkConnections, stageOnOwnConnection } from './sqlite/bulk-stage.ts';
import type { Store } from './store.ts';

export type { BulkFeed, BulkInsert, BulkLink, BulkOptions, BulkTarget } from './bulk-target.ts';

/** Opens the feed of `link` in a worker thread (see BulkLink). */
export function openBulkFeed(link: BulkLink): BulkFeed {
  if (link.file !== null) return stageOnOwnConnection(link);
  return {
    add: (values) => link.port.postMessage({ values } satisfies CollectedMessage),
    end: () => link.port.postMessage({ end: true } satisfies CollectedMessage),
  };
}

/** Closes whatever the feeds of this thread opened (its own connections, rolling back anything unfinished): call it before the thread leaves. */
export function closeBulkFeeds(): void {
  closeBulkConnections();
}

/**
 * The portable bulk insert (PostgreSQL's; on SQLite the one a main-thread feed takes): the values are kept in
 * batches on the main thread and written in one `store.transaction` (insertMany skipping conflicts: COPY and
 * INSERT … ON CONFLICT DO NOTHING on PostgreSQL, multi-row INSERTs on SQLite), with `finish` in it.
 */
export function collectedBulkInsert(store: Store, target: BulkTarget, options: BulkOptions): BulkInsert {
  const columns = targetColumns(target);
  const { port1, port2 } = new MessageChannel();
  const batches: (readonly string[])[] = [];
  let ended!: () => void;
  let broke!: (err: Error) => void;
  const fed = new Promise<void>((resolve, reject) => ((ended = resolve), (broke = reject)));
  fed.catch(() => undefined); // seen by commit
  port1.on('message', (m: CollectedMessage) => {
    if ('values' in m) batches.push(m.values);
    else if ('end' in m) ended();
    else broke(Object.assign(new Error(m.failed.message), { code: m.failed.code }));
  });
  port1.unref();
  let aborted = false;
  return {
    link: { target, file: null, busyTimeoutMs: options.busyTimeoutMs, port: port2 },
    add: (values) => void batches.push(values),
    end: () => ended(),
    async commit(fixed, finish, deadline) {
      await fed;
      port1.close();
      if (aborted) throw new Error('The bulk insert was aborted');
      return store.transaction(async (tx) => {
        function* rows() {
          for (const batch of batches) for (const value of batch) yield [...fixed, value];
        }
        const inserted = await insertMany(tx, target.table, columns, rows(), {
          ignoreConflicts: true,
          beforeChunk: () => {
            if (Date.now() > deadline) throw pastDeadline();
          },
        });
        batches.length = 0;
        const out = await finish(tx, inserted);
        if (Date.now() > deadline) throw pastDeadline();
        return out;
      });
    },
    abort() {
      aborted = true;
      batches.length = 0;
      port1.close();
      broke(new Error('The bulk insert was aborted'));
    },
  };
}
