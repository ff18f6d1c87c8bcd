import type { Db } from '../db/open.ts';

/** Tables whose ids are never reused (see migration 006-id-high-water.sql). */
export type NeverReusedIds = 'interviewers' | 'groups' | 'blacklist';

/**
 * The id for the next row of the table: above every id present and every id ever deleted, so a deleted
 * interviewer's history, a stale URL or a stale ETag never lands on a newer entity. Call inside the write
 * transaction that inserts the row.
 */
export function nextId(db: Db, table: NeverReusedIds): number {
  const sql = `SELECT MAX(COALESCE((SELECT MAX(id) FROM ${table}), 0),
    COALESCE((SELECT last_id FROM id_high_water WHERE entity = ?), 0)) + 1`;
  return db.prepare(sql).pluck().get(table) as number;
}
