import type Database from 'better-sqlite3';
import { readdirSync, readFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newSqliteDatabase } from './native-binding.ts';

export type Db = Database.Database;

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

export interface OpenOptions {
  /** Apply pending migrations (the server does; short-lived readers may skip). */
  migrate?: boolean;
  readonly?: boolean;
  /** busy_timeout in ms; writers wait this long for the write lock instead of failing. */
  busyTimeoutMs?: number;
}

/** Opens the SQLite database and sets its pragmas once: WAL, foreign keys, busy timeout. */
export function openDatabase(file: string, options: OpenOptions = {}): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = newSqliteDatabase(file, { readonly: options.readonly ?? false });
  if (!options.readonly) db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 15000)}`);
  db.pragma('synchronous = NORMAL');
  if (options.migrate ?? !options.readonly) migrate(db);
  return db;
}

export interface Migration {
  id: number;
  name: string;
  sql: string;
}

/** The migration files in order: `NNN-name.sql`, never edited once shipped. */
export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}-[a-z0-9-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ id: Number(f.slice(0, 3)), name: f, sql: readFileSync(join(dir, f), 'utf8') }));
}

/** Applies every pending migration, each in its own transaction, tracked in `schema_migrations`. */
export function migrate(db: Db, dir = MIGRATIONS_DIR): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const done = new Set(db.prepare('SELECT id FROM schema_migrations').pluck().all() as number[]);
  const applied: string[] = [];
  for (const m of listMigrations(dir)) {
    if (done.has(m.id)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)').run(m.id, m.name, Date.now());
    }).immediate();
    applied.push(m.name);
  }
  return applied;
}
