/**
 * Bulk load of call history (`npm run seed`, benchmarks): one entry point, each engine's fast path behind it.
 * SQLite: sqlite/load-calls.ts (indexes and triggers dropped, summaries counted on the way). PostgreSQL: below
 * (secondary indexes dropped and triggers disabled for the COPY, everything rebuilt from the rows).
 */
import { insertMany } from './bulk.ts';
import { rebuildCallCounts } from './call-counts.ts';
import { loadCallsSqlite } from './sqlite/load-calls.ts';
import type { Queryable, Store } from './store.ts';

/**
 * Inserts `count` calls from `rows` (values in `columns` order, in time order) in one transaction that is all
 * or nothing, with `call_counts`, `call_totals` and `call_id_ranges` consistent afterwards. Logs its phases.
 */
export async function loadCalls(store: Store, columns: readonly string[], rows: Iterable<readonly unknown[]>, count: number, log: (line: string) => void): Promise<void> {
  if (store.engine === 'sqlite') await loadCallsSqlite(store, columns, rows, count, log);
  else await loadCallsPostgres(store, columns, rows, log);
}

/** `call_id_ranges` (migration 014) rebuilt from the rows on PostgreSQL: each hour's lowest and highest call id. */
async function rebuildCallIdRanges(tx: Queryable): Promise<void> {
  await tx.exec(`DELETE FROM call_id_ranges;
    INSERT INTO call_id_ranges (hour, min_id, max_id) SELECT CAST(floor(time / 3600000.0) AS BIGINT), min(id), max(id) FROM calls GROUP BY 1`);
}

/**
 * The check of migration 022's trigger (disabled for the COPY), run once over the calls loaded: every survey
 * and call centre they name exists, locked FOR KEY SHARE until the commit.
 */
async function checkReferences(tx: Queryable, after: number): Promise<void> {
  await tx.column('SELECT 1 FROM surveys WHERE id IN (SELECT survey_id FROM calls WHERE id > ?) FOR KEY SHARE', [after]);
  await tx.column('SELECT 1 FROM call_centers WHERE id IN (SELECT call_center_id FROM calls WHERE id > ?) FOR KEY SHARE', [after]);
  const missing = await tx.get<{ survey_id: string; call_center_id: number }>(
    `SELECT survey_id, call_center_id FROM calls c WHERE id > ?
       AND (NOT EXISTS (SELECT 1 FROM surveys s WHERE s.id = c.survey_id) OR NOT EXISTS (SELECT 1 FROM call_centers cc WHERE cc.id = c.call_center_id)) LIMIT 1`,
    [after],
  );
  if (missing) throw new Error(`loadCalls: a call names survey ${missing.survey_id} and call centre ${missing.call_center_id}, one of which does not exist`);
}

/**
 * PostgreSQL's path of loadCalls, in one transaction: the secondary indexes of `calls` dropped and its triggers
 * disabled for the COPY (their reference check run once over the new rows), then the indexes recreated from their stored definitions, `call_id_ranges` and
 * `call_counts` rebuilt from the rows and the triggers enabled again.
 */
async function loadCallsPostgres(store: Store, columns: readonly string[], rows: Iterable<readonly unknown[]>, log: (line: string) => void): Promise<void> {
  const started = performance.now();
  await store.transaction(async (tx) => {
    const indexes = await tx.column<string>(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'calls'
         AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid = 'calls'::regclass)`,
    );
    for (const def of indexes) await tx.exec(`DROP INDEX ${/^CREATE (?:UNIQUE )?INDEX (\S+)/.exec(def)![1]}`);
    const before = (await tx.value<number>('SELECT coalesce(max(id), 0) FROM calls'))!;
    await tx.exec('ALTER TABLE calls DISABLE TRIGGER USER');
    await insertMany(tx, 'calls', columns, rows);
    await checkReferences(tx, before);
    log(`seed: rows written in ${Math.round(performance.now() - started)} ms; indexing…`);
    for (const def of indexes) await tx.exec(def);
    await tx.exec('ALTER TABLE calls ENABLE TRIGGER USER');
    await rebuildCallIdRanges(tx);
    await rebuildCallCounts(tx);
  });
  await store.exec('ANALYZE calls, call_counts, call_totals, call_id_ranges'); // fresh statistics: the summaries' triggers must plan index lookups
}
