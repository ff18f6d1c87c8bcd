import type { Statement } from 'better-sqlite3';
import { recordAudit, type Actor } from '../audit/audit-log.ts';
import type { Db } from '../db/open.ts';
import type { EntryKind } from './entries.ts';
import type { Checked } from './normalise.ts';
import { MAX_INVALID_ITEMS, type ImportOutcome, type InvalidItem } from './import-protocol.ts';

const BATCH = 500;

/**
 * Stages validated values in a connection-private TEMP table (no lock on the main database, and the JS
 * heap holds only one batch), then writes them in ONE short immediate transaction with a single
 * INSERT OR IGNORE … SELECT … ORDER BY (SQLite sorts, so the unique index is filled in order; the index
 * drops duplicates, whether already stored or repeated in the file). All or nothing.
 */
export class EntryImporter {
  private readonly stage: Statement<unknown[]>;
  private readonly stageOne: Statement<unknown[]>;
  private readonly batch: string[] = [];
  private valid = 0;
  private invalid = 0;
  private readonly invalidItems: InvalidItem[] = [];

  constructor(
    private readonly db: Db,
    private readonly kind: EntryKind,
    private readonly check: (raw: string) => Checked,
  ) {
    db.exec('CREATE TEMP TABLE IF NOT EXISTS import_values (v TEXT NOT NULL); DELETE FROM temp.import_values;');
    this.stage = db.prepare(`INSERT INTO temp.import_values (v) VALUES ${Array.from({ length: BATCH }, () => '(?)').join(', ')}`);
    this.stageOne = db.prepare('INSERT INTO temp.import_values (v) VALUES (?)');
  }

  /** Validates and stages every value (call before write). */
  addAll(values: Iterable<string>): void {
    let row = 0;
    for (const raw of values) {
      row++;
      const r = this.check(raw);
      if (!r.ok) {
        this.invalid++;
        if (this.invalidItems.length < MAX_INVALID_ITEMS) this.invalidItems.push({ row, value: raw, reason: r.reason });
        continue;
      }
      this.valid++;
      this.batch.push(r.value);
      if (this.batch.length === BATCH) {
        this.stage.run(...this.batch);
        this.batch.length = 0;
      }
    }
    for (const v of this.batch) this.stageOne.run(v);
    this.batch.length = 0;
  }

  /**
   * Writes the staged values into the list in one transaction and answers the counts and the first refused
   * values; the transaction also holds the import's audit row (one row with the counts, by `actor`).
   */
  write(listId: number, actor: Actor): ImportOutcome {
    const [table, column] = this.kind === 'emails' ? ['optout_emails', 'email_address'] : ['optout_domains', 'domain'];
    const exists = this.db.prepare('SELECT 1 FROM optout_lists WHERE id = ?').pluck();
    const insert = this.db.prepare(
      `INSERT OR IGNORE INTO ${table} (list_id, ${column}, timestamp) SELECT ?, v, ? FROM temp.import_values ORDER BY v`,
    );
    const newRows = this.db
      .transaction(() => {
        if (!exists.get(listId)) throw Object.assign(new Error('The opt-out list no longer exists'), { code: 'LIST_GONE' });
        const now = Date.now();
        const added = insert.run(listId, now).changes;
        const counts = { listId, kind: this.kind, newRows: added, duplicatedRows: this.valid - added, invalidRows: this.invalid };
        recordAudit(this.db, { action: 'imported', entity: 'optout-imports', entityId: listId, changes: counts }, now, actor);
        return added;
      })
      .immediate();
    this.db.exec('DROP TABLE temp.import_values');
    return { newRows, duplicatedRows: this.valid - newRows, invalidRows: this.invalid, invalidItems: this.invalidItems };
  }
}
