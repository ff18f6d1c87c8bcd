/**
 * Every write that acknowledges does so only after its COMMIT succeeded (docs/optout-api.md#limits; with the disk
 * full, `POST /optout/lists/{id}/emails` answered an id for a row that was never stored). A failing commit is
 * provoked without filling a disk: with `PRAGMA defer_foreign_keys`, a foreign-key violation surfaces at
 * COMMIT, exactly where a full disk does. An INSERT … RETURNING read with `.get()` in autocommit mode
 * returns the row before that commit and never sees it fail.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../server/db/open.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';
import { addDomainEntry, addEmailEntry } from '../../server/optout/entries.ts';

let dir: string;
let db: Db;
let store: SqliteStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cati-durability-'));
  db = openDatabase(join(dir, 'cati.sqlite'));
  db.pragma('defer_foreign_keys = ON');
  store = new SqliteStore(db, join(dir, 'cati.sqlite'));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const count = (table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get();

describe('a commit that fails is never acknowledged', () => {
  it('adding an e-mail entry throws instead of answering an id that is not stored', async () => {
    await expect(addEmailEntry(store, 424242, 'a@example.com', null)).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    expect(count('optout_emails')).toBe(0);
    expect(db.inTransaction).toBe(false);
  });

  it('adding a domain entry likewise', async () => {
    await expect(addDomainEntry(store, 424242, 'example.com')).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    expect(count('optout_domains')).toBe(0);
    expect(db.inTransaction).toBe(false);
  });
});
