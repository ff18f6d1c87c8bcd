import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newSqliteDatabase } from '../../server/db/native-binding.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { listMigrations, migrate, openDatabase } from '../../server/db/open.ts';

const dirs: string[] = [];
const tempFile = () => {
  const dir = mkdtempSync(join(tmpdir(), 'cati-mig-'));
  dirs.push(dir);
  return join(dir, 'cati.sqlite');
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('database', () => {
  it('applies every migration on a fresh file, in order, and records each once', () => {
    const db = openDatabase(tempFile());
    const applied = db.prepare('SELECT id, name FROM schema_migrations ORDER BY id').all() as { id: number; name: string }[];
    const files = listMigrations();
    expect(files.length).toBeGreaterThan(0);
    expect(applied.map((m) => m.name)).toEqual(files.map((f) => f.name));
    expect(new Set(files.map((f) => f.id)).size).toBe(files.length);
    expect(migrate(db)).toEqual([]);
    db.close();
  });

  it('upgrades a database of the last release whose demo wrote call times with a fraction of a millisecond', () => {
    const file = tempFile();
    const old = newSqliteDatabase(file);
    old.exec('CREATE TABLE schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
    for (const m of listMigrations().filter((m) => m.id <= 12)) {
      old.exec(m.sql);
      old.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, 0)').run(m.id, m.name);
    }
    old.prepare("INSERT INTO surveys (id, name) VALUES ('p1', 'One')").run();
    old.prepare("INSERT INTO calls (time, survey_id, telephone_number, call_center_id) VALUES (1763900000123.75, 'p1', '1', 1)").run();
    old.close();
    const db = openDatabase(file);
    expect(db.prepare('SELECT time, typeof(time) AS type FROM calls').get()).toEqual({ time: 1763900000123, type: 'integer' });
    expect(db.prepare('SELECT hour, min_id, max_id FROM call_id_ranges').all()).toEqual([{ hour: Math.floor(1763900000123 / 3_600_000), min_id: 1, max_id: 1 }]);
    db.close();
  });

  it('sets WAL, foreign keys and a busy timeout when it opens', () => {
    const db = openDatabase(tempFile());
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(Number(db.pragma('busy_timeout', { simple: true }))).toBeGreaterThanOrEqual(10000);
    db.close();
  });

  it('reopening an existing file applies nothing twice and keeps the data', () => {
    const file = tempFile();
    const a = openDatabase(file);
    a.prepare("INSERT INTO settings (key, value) VALUES ('x', '1')").run();
    a.close();
    const b = openDatabase(file);
    expect(b.prepare("SELECT value FROM settings WHERE key = 'x'").pluck().get()).toBe('1');
    b.close();
  });
});

describe('API keys', () => {
  it('authenticating while another connection holds the write lock neither waits nor fails', async () => {
    const { ApiKeyStore } = await import('../../server/auth/api-keys.ts');
    const { SqliteStore } = await import('../../server/db/sqlite-store.ts');
    const file = tempFile();
    const sqlite = SqliteStore.open(file);
    const store = new ApiKeyStore(sqlite);
    const { key } = await store.create('reader', ['cati_administrate']);
    const other = openDatabase(file);
    other.exec('BEGIN IMMEDIATE');
    const started = Date.now();
    expect((await store.authenticate(key))?.name).toBe('reader');
    expect(Date.now() - started).toBeLessThan(5000); // busy_timeout is 15 s: it did not wait for the lock
    expect(sqlite.db.pragma('busy_timeout', { simple: true })).toBe(15000);
    expect((await store.list())[0]!.lastUsedAt).toBeNull(); // the stamp was skipped, not waited for
    other.exec('ROLLBACK');
    expect((await store.authenticate(key))?.name).toBe('reader');
    expect((await store.get((await store.list())[0]!.id))?.lastUsedAt).not.toBeNull();
    other.close();
    await sqlite.close();
  });
});
