import { recordAudit, type Actor } from '../audit/audit-log.ts';
import type { Store } from '../db/store.ts';
import { ApiError } from '../errors.ts';
import { insertMany } from '../db/bulk.ts';
import type { EntryKind } from './entries.ts';
import type { ImportOutcome, InvalidItem } from './import-protocol.ts';
import { ENTRY_TARGET, listGone } from './import-write.ts';

/** What the parse worker sent: the valid values in batches, and its counts. */
export interface ParsedValues {
  batches: readonly (readonly string[])[];
  counts: { valid: number; invalid: number; invalidItems: InvalidItem[] };
}

/**
 * The Store's import writer (PostgreSQL; the SQLite import keeps its write worker, import-write.ts): writes
 * the parsed values into the list in ONE `store.transaction` — chunked multi-row inserts that skip duplicates
 * (stored before or repeated in the file) — together with the import's audit row by `actor`. All or nothing:
 * a failure, a dropped connection or passing `deadline` (epoch ms, checked between chunks) rolls it all back.
 */
export function writeEntriesThroughStore(
  store: Store,
  listId: number,
  kind: EntryKind,
  parsed: ParsedValues,
  actor: Actor,
  deadline: number,
): Promise<ImportOutcome> {
  const { table, column } = ENTRY_TARGET[kind];
  const { valid, invalid, invalidItems } = parsed.counts;
  return store.transaction(async (tx) => {
    if (!(await tx.value('SELECT 1 FROM optout_lists WHERE id = ?', [listId]))) throw listGone();
    const now = Date.now();
    function* rows() {
      for (const batch of parsed.batches) for (const value of batch) yield [listId, value, now];
    }
    const newRows = await insertMany(tx, table, ['list_id', column, 'timestamp'], rows(), {
      ignoreConflicts: true,
      beforeChunk: () => {
        if (Date.now() > deadline) throw new ApiError('InternalError', 'Writing the import took too long; nothing was stored');
      },
    });
    const counts = { listId, kind, newRows, duplicatedRows: valid - newRows, invalidRows: invalid };
    await recordAudit(tx, { action: 'imported', entity: 'optout-imports', entityId: listId, changes: counts }, now, actor);
    return { newRows, duplicatedRows: valid - newRows, invalidRows: invalid, invalidItems };
  });
}
