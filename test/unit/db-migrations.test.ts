import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
    const file = tempFile();
    const db = openDatabase(file);
    const store = new ApiKeyStore(db);
    const { key } = store.create('reader', ['cati_administrate']);
    const other = openDatabase(file);
    other.exec('BEGIN IMMEDIATE');
    const started = Date.now();
    expect(store.authenticate(key)?.name).toBe('reader');
    expect(Date.now() - started).toBeLessThan(5000); // busy_timeout is 15 s: it did not wait for the lock
    expect(db.pragma('busy_timeout', { simple: true })).toBe(15000);
    other.exec('ROLLBACK');
    expect(store.authenticate(key)?.name).toBe('reader');
    expect(store.get(store.list()[0]!.id)?.lastUsedAt).not.toBeNull();
    other.close();
    db.close();
  });
});
