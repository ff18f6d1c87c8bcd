/**
 * Client-shaped queries that read a large table from its start leave the event loop (docs/limits.md#event-loop,
 * db/large-scans.ts): on a SQLite store holding more than LARGE_ROWS calls, `clientRows` of a full scan runs on
 * the read worker, while a seek stays on the main connection. Observable without timing: while another request's
 * write transaction is open on the main connection, main-connection reads wait for it to end, and the read
 * worker answers at once from the last commit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LARGE_ROWS, rowSpanSql } from '../../server/db/large-scans.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';
import { seedCalls } from '../../server/demo/demo.ts';
import { closeReadPool } from '../../server/db/sqlite/read-pool.ts';

const CALLS = LARGE_ROWS + 20_000;
let dir: string;
let store: SqliteStore;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cati-scans-'));
  store = SqliteStore.open(join(dir, 'cati.sqlite'));
  await seedCalls(store, CALLS, () => {});
});

afterAll(async () => {
  await store?.close();
  await closeReadPool(join(dir, 'cati.sqlite'));
  rmSync(dir, { recursive: true, force: true });
});

/** Resolves `read` while a write transaction holds the main connection; says whether it settled before the commit. */
async function duringTransaction<T>(read: () => Promise<T>): Promise<{ value: T; beforeCommit: boolean }> {
  let release!: () => void;
  let opened!: () => void;
  const open = new Promise<void>((ok) => (opened = ok));
  const tx = store.transaction(async (t) => {
    await t.run("UPDATE call_centers SET name = name || '' WHERE id = 1");
    opened();
    await new Promise<void>((ok) => (release = ok));
  });
  await open;
  let settled = false;
  const pending = read().then((value) => ((settled = true), value));
  // Let the read worker answer (a message each way, and its start on first use) before the transaction commits;
  // up to 10 s, as starting a thread through tsx takes seconds on a loaded machine running files in parallel.
  for (let i = 0; i < 2000 && !settled; i++) await new Promise((ok) => setTimeout(ok, 5));
  const beforeCommit = settled;
  release();
  await tx;
  return { value: await pending, beforeCommit };
}

const FULL_SCAN = "SELECT id, telephone_number FROM calls WHERE telephone_number LIKE '%99999%' ORDER BY id LIMIT 5";

describe('large scans leave the event loop', () => {
  it('knows a scan from the start of a large table, or an aggregation of its rows, from a seek', () => {
    const scans = (store as unknown as { scans: { offloads(sql: string, p: unknown[]): boolean } }).scans;
    expect(scans.offloads(FULL_SCAN, [])).toBe(true);
    expect(scans.offloads('SELECT count(*) FROM calls', [])).toBe(true);
    expect(scans.offloads('SELECT id FROM calls ORDER BY duration DESC LIMIT 3', [])).toBe(true);
    expect(scans.offloads('SELECT id FROM calls WHERE id > ? ORDER BY id LIMIT 10', [5])).toBe(false);
    // Aggregating reads the whole range before the first row: off the loop. A page's bounded sort stays.
    expect(scans.offloads('SELECT count(*) FROM calls WHERE time >= ? AND time < ?', [0, 1])).toBe(true);
    expect(scans.offloads('SELECT interviewer_id, count(*) FROM calls WHERE time >= ? GROUP BY interviewer_id', [0])).toBe(true);
    expect(scans.offloads('SELECT id FROM calls WHERE time >= ? AND time < ? ORDER BY id LIMIT 101', [0, 1])).toBe(false);
    expect(scans.offloads('SELECT id FROM calls WHERE time >= ? AND time < ? ORDER BY time LIMIT 3', [0, 1])).toBe(false);
    expect(scans.offloads('SELECT id FROM calls WHERE id IN (?, ?, ?)', [1, 2, 3])).toBe(false);
    // The one-day page: its key range comes from min/max over the small per-hour table (key-ranges.ts); the
    // aggregation reads only that table, and the calls are a bounded seek.
    const keyRange = '(SELECT COALESCE(min(min_id), 1) FROM call_id_ranges WHERE hour BETWEEN ? AND ?) AND (SELECT COALESCE(max(max_id), 0) FROM call_id_ranges WHERE hour BETWEEN ? AND ?)';
    expect(scans.offloads(`SELECT id FROM calls WHERE id BETWEEN ${keyRange} AND time >= ? AND time < ? ORDER BY id LIMIT 101`, [0, 1, 0, 1, 0, 1])).toBe(false);
    expect(scans.offloads(`SELECT count(*) FROM calls WHERE id BETWEEN ${keyRange} AND time >= ? AND time < ?`, [0, 1, 0, 1, 0, 1])).toBe(true);
    expect(scans.offloads('SELECT id, name FROM call_centers', [])).toBe(false); // a small table
    expect(scans.offloads('SELECT count(*) FROM call_centers GROUP BY time_zone', [])).toBe(false);
  });

  it("reads a table's size (the span of its rowids) with two seeks, not a scan", async () => {
    // Re-read every second on the event loop: as one `max(rowid) - min(rowid)` it scanned 20M calls for 1.1 s.
    const plan = (await store.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${rowSpanSql('calls')}`)).map((r) => r.detail);
    expect(plan.filter((d) => /\bcalls\b/.test(d))).toEqual(['SEARCH calls', 'SEARCH calls']);
    expect(await store.value(rowSpanSql('calls'))).toBe(CALLS);
  });

  it('runs a large scan on the read worker with the same answer, while the main connection is held', async () => {
    const expected = await store.rows(FULL_SCAN);
    expect(expected.length).toBeGreaterThan(0);
    const { value, beforeCommit } = await duringTransaction(() => store.clientRows(FULL_SCAN));
    expect(value).toEqual(expected);
    expect(beforeCommit).toBe(true);
    const count = await duringTransaction(() => store.clientRows('SELECT count(*) FROM calls'));
    expect(count.value).toEqual([[CALLS]]);
    expect(count.beforeCommit).toBe(true);
    // A `$apply`-shaped aggregation over an index range of the large table: off the loop too.
    const grouped = 'SELECT interviewer_id, count(*) FROM calls WHERE time >= ? GROUP BY interviewer_id ORDER BY interviewer_id';
    const perInterviewer = await duringTransaction(() => store.clientRows(grouped, [0]));
    expect(perInterviewer.value).toEqual(await store.rows(grouped, [0]));
    expect(perInterviewer.value.reduce((n, r) => n + Number(r[1]), 0)).toBe(CALLS);
    expect(perInterviewer.beforeCommit).toBe(true);
  });

  it('keeps a seek on the main connection, and every read inside a transaction in it', async () => {
    const seek = await duringTransaction(() => store.clientRows('SELECT id FROM calls WHERE id > ? ORDER BY id LIMIT 3', [10]));
    expect(seek.value).toEqual([[11], [12], [13]]);
    expect(seek.beforeCommit).toBe(false);
    // Inside a transaction a large scan sees the transaction's own writes: it cannot leave the connection.
    const inside = await store.transaction(async (tx) => {
      await tx.run("UPDATE calls SET telephone_number = 'x99999x' WHERE id = 1");
      return tx.clientRows(FULL_SCAN);
    });
    expect(inside[0]).toEqual([1, 'x99999x']);
  });
});
