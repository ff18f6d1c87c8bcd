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
