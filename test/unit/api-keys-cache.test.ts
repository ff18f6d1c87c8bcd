import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../server/auth/api-keys.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';
import type { Store } from '../../server/db/store.ts';

const dirs: string[] = [];
const stores: SqliteStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Two connections on one database file, as two server processes share one database. */
function twoConnections(): [SqliteStore, SqliteStore] {
  const dir = mkdtempSync(join(tmpdir(), 'cati-keys-'));
  dirs.push(dir);
  const file = join(dir, 'cati.sqlite');
  const pair: [SqliteStore, SqliteStore] = [SqliteStore.open(file), SqliteStore.open(file)];
  stores.push(...pair);
  return pair;
}

/** The store as the key cache sees a PostgreSQL one: the same statements, engine 'postgres' (no PRAGMA data_version). */
const asPostgres = (store: SqliteStore): Store => Object.create(store, { engine: { value: 'postgres' } }) as Store;

describe('The API-key cache and revocations by another connection or process', () => {
  for (const engine of ['sqlite', 'postgres'] as const) {
    it(`${engine}: a key revoked through another connection is refused on its next use, though this process just cached it`, async () => {
      const [a, b] = twoConnections();
      const view = (s: SqliteStore) => (engine === 'sqlite' ? s : asPostgres(s));
      const here = new ApiKeyStore(view(a));
      const elsewhere = new ApiKeyStore(view(b));
      const { key, info } = await here.create('dialer', ['cati_integrate']);
      expect((await here.authenticate(key))?.name).toBe('dialer');
      expect((await here.authenticate(key))?.name).toBe('dialer'); // from the cache now
      expect(await elsewhere.revoke(info.id)).toBe(true);
      expect(await here.authenticate(key)).toBeUndefined();
    });
  }

  it('a revocation through this store is immediate, and an unrelated write elsewhere does not refuse a live key', async () => {
    const [a, b] = twoConnections();
    const here = new ApiKeyStore(asPostgres(a));
    const elsewhere = new ApiKeyStore(asPostgres(b));
    const kept = await here.create('kept', ['cati_integrate']);
    const gone = await here.create('gone', ['cati_integrate']);
    expect(await here.authenticate(gone.key)).toBeDefined();
    expect(await here.revoke(gone.info.id)).toBe(true);
    expect(await here.authenticate(gone.key)).toBeUndefined();
    await elsewhere.create('another', ['cati_administrate']);
    expect((await here.authenticate(kept.key))?.name).toBe('kept');
  });

  it('with a key-change signal, a revocation answers only once every server has heard of it (or the wait ran out)', async () => {
    const [a] = twoConnections();
    const waits: { timeoutMs: number; heard: () => void }[] = [];
    const signal = {
      keyVersion: 7,
      revocationHeard: (timeoutMs: number) => new Promise<void>((heard) => waits.push({ timeoutMs, heard })),
    };
    const keys = new ApiKeyStore(asPostgres(a));
    keys.useKeyChangeSignal(signal);
    const made = await keys.create('dialer', ['cati_integrate']);
    let answered = false;
    const revoking = keys.revoke(made.info.id).then((ok) => ((answered = true), ok));
    await expect.poll(() => waits.length).toBe(1);
    expect(waits[0]!.timeoutMs).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 20));
    expect(answered).toBe(false);
    signal.keyVersion++;
    waits[0]!.heard();
    expect(await revoking).toBe(true);
    // Nothing revoked: nothing to wait for.
    expect(await keys.revoke(made.info.id)).toBe(false);
    expect(waits).toHaveLength(1);
  });
});
