/**
 * Migrations on PostgreSQL: the files of migrations-pg/, numbered and named as their SQLite twins in
 * migrations/, tracked in the same `schema_migrations (id, name, applied_at)` table, each applied in its own
 * transaction. An advisory lock makes servers starting at the same time take turns.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { listMigrations } from './open.ts';
import { isConnectionError } from './pg-sql.ts';

export const PG_MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations-pg');

/** Any constant: the advisory lock key of schema migrations ("cati" in ASCII). */
const MIGRATION_LOCK = 0x63617469;

/** Applies every pending migration; resolves to the names applied. */
export async function migratePg(pool: pg.Pool, dir = PG_MIGRATIONS_DIR): Promise<string[]> {
  const client = await pool.connect();
  const ignore = (): void => undefined; // a broken connection shows as the next query's rejection
  client.on('error', ignore);
  const applied: string[] = [];
  let broken: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`);
      const done = new Set((await client.query<{ id: number }>('SELECT id FROM schema_migrations')).rows.map((r) => r.id));
      for (const m of listMigrations(dir)) {
        if (done.has(m.id)) continue;
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          await client.query('INSERT INTO schema_migrations (id, name, applied_at) VALUES ($1, $2, $3)', [m.id, m.name, Date.now()]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw isConnectionError(err) ? err : new Error(`Migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
        }
        applied.push(m.name);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch((err: unknown) => void (broken = err as Error));
    }
  } catch (err) {
    broken ??= err as Error;
    throw err;
  } finally {
    client.removeListener('error', ignore);
    client.release(broken);
  }
  return applied;
}
