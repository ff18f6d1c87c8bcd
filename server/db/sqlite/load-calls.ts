import { insertMany } from '../bulk.ts';
import { CallSummaryTally } from '../call-counts.ts';
import type { Store } from '../store.ts';

/**
 * Indexes of `calls` kept through the load, because they cost less than a rebuild: the rows come in time order, so
 * `calls_time` grows by appends, and `calls_open` holds calls in progress, which a seed never writes.
 */
const KEPT_INDEXES = new Set(['calls_time', 'calls_open']);
/**
 * The page cache during the seed, 16 MB. The load only appends, and each index sort sorts runs of the cache's size in
 * memory before merging them: runs of 16 MB stay in the CPU caches and sort twice as fast as runs of 256 MB.
 */
const CACHE_KIB = 16_384;
/** Calls inserted between two writes of the summaries. */
const SEGMENT = 500_000;

/** Where the summaries' inputs are in a row of `columns`. */
function summaryColumns(columns: readonly string[]): { time: number; interviewer: number; status: number } {
  const at = (name: string) => {
    const i = columns.indexOf(name);
    if (i < 0) throw new Error(`loadCalls: the rows have no ${name} column`);
    return i;
  };
  return { time: at('time'), interviewer: at('interviewer_id'), status: at('extended_status') };
}

/** The next `n` rows of `rows`, each counted in `tally` on its way. */
function* tallied(rows: Iterator<readonly unknown[]>, n: number, tally: CallSummaryTally, at: ReturnType<typeof summaryColumns>): Generator<readonly unknown[]> {
  for (let i = 0; i < n; i++) {
    const next = rows.next();
    if (next.done) return;
    const row = next.value;
    tally.add(row[at.time] as number, row[at.interviewer] as number | null, row[at.status] as number | null);
    yield row;
  }
}

/**
 * SQLite's path of loadCalls, in one transaction: `count` calls from `rows` (values in `columns` order, time order) inserted
 * with the other indexes and the triggers of `calls` dropped, the summaries the triggers keep counted on the way
 * (CallSummaryTally), then the dropped indexes and triggers recreated from their stored SQL (a sort per index, not
 * 20 million B-tree inserts). During the load the journal is a rollback journal (new pages need no journal) and the
 * page cache 16 MB (CACHE_KIB), so memory does not grow with `count`; WAL and the connection's settings are back
 * afterwards. Logs each phase's duration.
 */
export async function loadCallsSqlite(
  store: Store,
  columns: readonly string[],
  rows: Iterable<readonly unknown[]>,
  count: number,
  log: (line: string) => void,
): Promise<void> {
  const at = summaryColumns(columns);
  let t = performance.now();
  const lap = (what: string) => {
    const now = performance.now();
    log(`seed: ${what} in ${Math.round(now - t)} ms`);
    t = now;
  };
  const cache = await store.value<number>('PRAGMA cache_size');
  const threads = await store.value<number>('PRAGMA threads');
  await store.exec('PRAGMA journal_mode = DELETE');
  await store.exec(`PRAGMA cache_size = -${CACHE_KIB}`);
  await store.exec('PRAGMA threads = 2'); // the index sorts may use a helper thread
  try {
    await store.transaction(async (tx) => {
      const schema = await tx.all<{ type: string; name: string; sql: string }>(
        `SELECT type, name, sql FROM sqlite_master WHERE tbl_name = 'calls' AND type IN ('index', 'trigger') AND sql IS NOT NULL`,
      );
      const dropped = schema.filter((s) => !KEPT_INDEXES.has(s.name));
      for (const s of dropped) await tx.exec(`DROP ${s.type === 'index' ? 'INDEX' : 'TRIGGER'} "${s.name}"`);
      const firstId = (await tx.value<number>('SELECT COALESCE(max(id), 0) + 1 FROM calls'))!;
      const tally = new CallSummaryTally(firstId);
      const source = rows[Symbol.iterator]();
      let inserted = 0;
      while (inserted < count) {
        const n = await insertMany(tx, 'calls', columns, tallied(source, Math.min(SEGMENT, count - inserted), tally, at));
        if (n === 0) break;
        inserted += n;
        await tally.write(tx);
      }
      await tally.write(tx, true);
      // The tally numbered the calls as SQLite does (max rowid + 1, one by one); make sure it did.
      const lastId = await tx.value<number>('SELECT max(id) FROM calls');
      if (inserted > 0 && lastId !== firstId + inserted - 1) throw new Error(`seed: calls got ids up to ${lastId}, expected ${firstId + inserted - 1}`);
      lap(`${inserted} rows written with their summaries`);
      for (const s of dropped) {
        await tx.exec(s.sql);
        if (s.type === 'index') lap(`index ${s.name} built`);
      }
    });
    lap('committed');
  } finally {
    await store.exec('PRAGMA journal_mode = WAL');
    await store.exec(`PRAGMA cache_size = ${Math.trunc(cache ?? -2000)}`);
    await store.exec(`PRAGMA threads = ${Math.trunc(threads ?? 0)}`);
  }
}
