/**
 * Which client-shaped statements may take long on a large table (docs/limits.md#event-loop: no request may hold the event
 * loop for more than 50 ms at 1,000,000 calls). SQLite's bytecode tells two kinds:
 * - a scan from the start: a cursor opened on a table or index (`OpenRead`, its root page) and then rewound or
 *   counted (`Rewind`, `Last`, `Count`), where an index seek (`SeekGE`, `SeekRowid`…) reads only its range;
 * - an aggregation (`AggStep`, or `SorterInsert`: a GROUP BY's sorter) reads every row of its range before the
 *   first answer, however narrow the filter looks: every table whose loop (`Next`/`Prev`) encloses it counts (all
 *   tables opened when no table loop does). A page's bounded sort (`ORDER BY … LIMIT`, a small ephemeral index)
 *   stays, and so does the one-day page's min/max over the per-hour key ranges: measured within budget.
 * Such a statement on a table holding more than LARGE_ROWS rows (the span of its rowids, re-read every second) may take
 * longer than the budget: SqliteStore sends it to the read worker (outside a transaction). One that stops early (`$top` in key
 * order, a narrow range) is sent too; the hop costs a fraction of a millisecond.
 */
import type { Db } from './open.ts';

/** Rows above which a scan from the start leaves the event loop (a full scan of 100,000 calls takes some 8 ms). */
export const LARGE_ROWS = 100_000;
const SIZE_TTL_MS = 1_000;
const MAX_STATEMENTS = 1000;
const SCAN_OPCODES = new Set(['Rewind', 'Last', 'Count']);
/** Steps that take a row into an aggregate or a GROUP BY's sorter: their loop reads its whole range first. */
const GATHER_OPCODES = new Set(['AggStep', 'AggStep1', 'AggValue', 'SorterInsert']);
/** The last step of a loop over cursor p1, jumping back to p2. */
const LOOP_OPCODES = new Set(['Next', 'Prev']);

/**
 * The span of a table's rowids (largest - smallest + 1): a table keyed by something else than a counter
 * (call_id_ranges by the hour since 1970, some 490,000) is not large for having a large key. Two subqueries:
 * SQLite reads a lone min() or max() of the rowid with one seek, but `max(rowid) - min(rowid)` in one SELECT scans
 * the whole table (1.1 s at 20M calls, re-read every second).
 */
export function rowSpanSql(table: string): string {
  const name = `"${table.replaceAll('"', '""')}"`;
  return `SELECT (SELECT max(rowid) FROM ${name}) - (SELECT min(rowid) FROM ${name}) + 1`;
}

interface Op {
  opcode: string;
  p1: number;
  p2: number;
  /** The database a cursor opens: 0 is the main one (1 is TEMP, which no other connection sees). */
  p3: number;
}

export class LargeScans {
  /** SQL text → the tables its plan scans from the start. */
  private readonly scanned = new Map<string, string[]>();
  /** Root page → table (of a table or its index), from sqlite_master. */
  private roots = new Map<number, string>();
  private readonly sizes = new Map<string, { rows: number; until: number }>();

  /** `file`: ':memory:' or '' (no read worker can open it) never offloads. */
  constructor(
    private readonly db: Db,
    private readonly file: string,
  ) {}

  /** True when `sql` (bound with `params`) scans from its start, or aggregates, a table of more than LARGE_ROWS rows. */
  offloads(sql: string, params: readonly unknown[]): boolean {
    if (this.file === ':memory:' || this.file === '') return false;
    let tables = this.scanned.get(sql);
    if (tables === undefined) {
      if (this.scanned.size >= MAX_STATEMENTS) this.scanned.delete(this.scanned.keys().next().value!);
      this.scanned.set(sql, (tables = this.tablesScanned(sql, params)));
    }
    return tables.some((t) => this.rowsOf(t) > LARGE_ROWS);
  }

  private tablesScanned(sql: string, params: readonly unknown[]): string[] {
    let code: Op[];
    try {
      code = this.db.prepare(`EXPLAIN ${sql}`).all(...params) as Op[];
    } catch {
      return []; // not explainable here (the statement itself will say why)
    }
    const cursors = new Map<number, number>();
    for (const op of code) if (op.opcode === 'OpenRead' && op.p3 === 0) cursors.set(op.p1, op.p2);
    const tables = new Set<string>();
    const add = (cursor: number) => {
      const root = cursors.get(cursor);
      const table = root === undefined ? undefined : this.tableOf(root);
      if (table) tables.add(table);
    };
    for (const op of code) if (SCAN_OPCODES.has(op.opcode)) add(op.p1);
    // An aggregation reads every row of the table loops around it (a count over a day's range: all of that day).
    // Only those: the one-day page takes min/max of a small per-hour table (key-ranges.ts), then seeks the calls.
    // One fed by no table loop (rows from a subquery's coroutine, a single seek) counts every table opened.
    const loops = code.flatMap((op, end) => (LOOP_OPCODES.has(op.opcode) && cursors.has(op.p1) ? [{ cursor: op.p1, start: op.p2, end }] : []));
    let opaque = false;
    code.forEach((op, at) => {
      if (!GATHER_OPCODES.has(op.opcode)) return;
      const around = loops.filter((l) => l.start <= at && at < l.end);
      if (around.length === 0) opaque = true;
      for (const l of around) add(l.cursor);
    });
    if (opaque) for (const cursor of cursors.keys()) add(cursor);
    return [...tables];
  }

  private tableOf(root: number): string | undefined {
    if (!this.roots.has(root)) {
      const rows = this.db.prepare("SELECT rootpage, tbl_name FROM sqlite_master WHERE type IN ('table', 'index') AND rootpage > 0").all() as { rootpage: number; tbl_name: string }[];
      this.roots = new Map(rows.map((r) => [r.rootpage, r.tbl_name]));
    }
    return this.roots.get(root);
  }

  /** The span of the table's rowids (an upper bound of its rows, read in O(log n)); 0 for a table without rowids. */
  private rowsOf(table: string): number {
    const now = Date.now();
    const known = this.sizes.get(table);
    if (known && known.until > now) return known.rows;
    let rows: number;
    try {
      rows = Number(this.db.prepare(rowSpanSql(table)).pluck().get() ?? 0);
    } catch {
      rows = 0; // WITHOUT ROWID: none of ours grows large
    }
    this.sizes.set(table, { rows, until: now + SIZE_TTL_MS });
    return rows;
  }
}
