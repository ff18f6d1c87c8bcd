import { createHash } from 'node:crypto';
import type { Params, Store } from '../db/store.ts';

/** SHA-256 hex digest of a key or token: the only form in which they are stored. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * Runs a small bookkeeping write (a "last used" stamp) without waiting for a lock (`Store.runIfIdle`): answers
 * whether it wrote; a skipped stamp is tried again on next use.
 */
export function writeIfIdle(store: Store, sql: string, params: Params): Promise<boolean> {
  return store.runIfIdle(sql, params);
}
