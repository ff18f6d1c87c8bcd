import type { Statement } from 'better-sqlite3';
import { recordAudit, type Actor } from '../audit/audit-log.ts';
import type { SqliteStore } from '../db/sqlite-store.ts';
import type { EntryKind } from './entries.ts';
import type { ImportOutcome, InvalidItem } from './import-protocol.ts';

const BATCH = 500;

/** The columns an import writes into, fixed here (never taken from input). */
export const ENTRY_TARGET: Record<EntryKind, { table: string; column: string }> = {
  emails: { table: 'optout_emails', column: 'email_address' },
  domains: { table: 'optout_domains', column: 'domain' },
};

/** The error an import throws when its list was deleted meanwhile (the service answers 404). */
export function listGone(): Error {
  return Object.assign(new Error('The opt-out list no longer exists'), { code: 'LIST_GONE' });
}

/**
 * The SQLite import writer (the write worker's, on a connection of its own; this path is SQLite-only by
 * design, PostgreSQL imports go through import-store-write.ts). Stages validated values in a
 * connection-private TEMP table (no lock on the main database, and the JS heap holds only one batch), then
 * writes them in ONE short immediate transaction with a single INSERT OR IGNORE … SELECT … ORDER BY (SQLite
 * sorts, so the unique index is filled in order; the index drops duplicates, whether already stored or
 * repeated in the file). All or nothing. Validation happened in the parse worker; this class only receives
 * values already in their stored form and the parser's counts.
 */
export class EntryImporter {
  private readonly stageMany: Statement<unknown[]>;
  private readonly stageOne: Statement<unknown[]>;
  private counts: { valid: number; invalid: number; invalidItems: InvalidItem[] } = { valid: 0, invalid: 0, invalidItems: [] };

  constructor(
    private readonly store: SqliteStore,
    private readonly kind: EntryKind,
  ) {
    const db = store.db;
    db.exec('CREATE TEMP TABLE IF NOT EXISTS import_values (v TEXT NOT NULL); DELETE FROM temp.import_values;');
    this.stageMany = db.prepare(`INSERT INTO temp.import_values (v) VALUES ${Array.from({ length: BATCH }, () => '(?)').join(', ')}`);
    this.stageOne = db.prepare('INSERT INTO temp.import_values (v) VALUES (?)');
  }

  /** Stages valid values (call before write). */
  stage(values: readonly string[]): void {
    let i = 0;
    for (; i + BATCH <= values.length; i += BATCH) this.stageMany.run(...values.slice(i, i + BATCH));
    for (; i < values.length; i++) this.stageOne.run(values[i]);
  }

  /** The parser's counts of valid and refused values (its first refused values included). */
  counted(counts: { valid: number; invalid: number; invalidItems: InvalidItem[] }): void {
    this.counts = counts;
  }

  /**
   * Writes the staged values into the list in one transaction and answers the counts and the first refused
   * values; the transaction also holds the import's audit row (one row with the counts, by `actor`).
   */
  async write(listId: number, actor: Actor): Promise<ImportOutcome> {
    const { table, column } = ENTRY_TARGET[this.kind];
    const insert = `INSERT OR IGNORE INTO ${table} (list_id, ${column}, timestamp) SELECT ?, v, ? FROM temp.import_values ORDER BY v`;
    const newRows = await this.store.transaction(async (tx) => {
      if (!(await tx.value('SELECT 1 FROM optout_lists WHERE id = ?', [listId]))) throw listGone();
      const now = Date.now();
      const added = (await tx.run(insert, [listId, now])).changes;
      const counts = { listId, kind: this.kind, newRows: added, duplicatedRows: this.counts.valid - added, invalidRows: this.counts.invalid };
      await recordAudit(tx, { action: 'imported', entity: 'optout-imports', entityId: listId, changes: counts }, now, actor);
      return added;
    });
    this.store.db.exec('DROP TABLE temp.import_values');
    const { valid, invalid, invalidItems } = this.counts;
    return { newRows, duplicatedRows: valid - newRows, invalidRows: invalid, invalidItems };
  }
}
