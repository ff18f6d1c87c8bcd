import { createHash } from 'node:crypto';
import type { Db } from '../db/open.ts';

/** SHA-256 hex digest of a key or token: the only form in which they are stored. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * Runs a small bookkeeping write (a "last used" stamp) without waiting for the write lock: while another
 * connection holds it (a bulk import), the write is skipped instead of making the request wait on busy_timeout.
 * Answers whether it wrote.
 */
export function writeIfIdle(db: Db, write: () => void): boolean {
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    write();
    return true;
  } catch (err) {
    if ((err as { code?: string }).code !== 'SQLITE_BUSY') throw err;
    return false;
  } finally {
    db.pragma(`busy_timeout = ${Math.trunc(timeout)}`);
  }
}
