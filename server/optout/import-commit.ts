import { recordAudit, type Actor } from '../audit/audit-log.ts';
import type { BulkInsert, BulkTarget } from '../db/bulk-insert.ts';
import type { EntryKind } from './entries.ts';
import type { FileCounts, ImportOutcome } from './import-protocol.ts';

/** Where an import's values go: the list's table and column (fixed here, never taken from input), one row each with the list and the time. */
export function entryTarget(kind: EntryKind): BulkTarget {
  return kind === 'emails'
    ? { table: 'optout_emails', fixed: ['list_id', 'timestamp'], column: 'email_address' }
    : { table: 'optout_domains', fixed: ['list_id', 'timestamp'], column: 'domain' };
}

/** The error an import throws when its list was deleted meanwhile (the service answers 404). */
export function listGone(): Error {
  return Object.assign(new Error('The opt-out list no longer exists'), { code: 'LIST_GONE' });
}

/**
 * Writes an import's fed values into list `listId` (the Store's bulk insert: all or nothing, in one
 * transaction) and, in that transaction, checks that the list still exists and writes the import's audit row
 * (one row with the counts, by `actor`). Answers the counts and the parser's first refused values.
 */
export function commitImport(bulk: BulkInsert, listId: number, kind: EntryKind, counts: FileCounts, actor: Actor, deadline: number): Promise<ImportOutcome> {
  const now = Date.now();
  const { valid, invalid, invalidItems, encoding } = counts;
  return bulk.commit(
    [listId, now],
    async (tx, newRows) => {
      if (!(await tx.value('SELECT 1 FROM optout_lists WHERE id = ?', [listId]))) throw listGone();
      const changes = { listId, kind, newRows, duplicatedRows: valid - newRows, invalidRows: invalid };
      await recordAudit(tx, { action: 'imported', entity: 'optout-imports', entityId: listId, changes }, now, actor);
      return { newRows, duplicatedRows: valid - newRows, invalidRows: invalid, invalidItems, encoding };
    },
    deadline,
  );
}
