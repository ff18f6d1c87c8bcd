/**
 * docs/deployment.md#postgresql on PostgreSQL, over HTTP: two server processes' worth of servers on one database serve the same
 * data (a write through one is read through the other at once, /events of one carries the other's changes), and
 * a database that goes away answers 503 with a message, never a crash or a half-written import, and comes back by
 * itself. Runs in the `postgres` project (skipped in the SQLite one).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../server/db/store.ts';
import { createDatabase, PgCluster, postgresBinDir } from '../helpers/pg-cluster.ts';
import { testEngine } from '../helpers/engine.ts';
import { freshPgDatabase } from '../helpers/postgres.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { openEvents } from '../helpers/sse.ts';

const onPostgres = testEngine() === 'postgres';

describe.skipIf(!onPostgres)('two servers on one PostgreSQL database', () => {
  let a: TestServer;
  let b: TestServer;
  let admin: pg.Client;
  beforeAll(async () => {
    const database = await freshPgDatabase();
    a = await startTestServer({ database });
    b = await startTestServer({ database });
    admin = new pg.Client({ connectionString: database });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await a?.close();
    await b?.close();
  });

  /** The SQL texts `store` runs while `work` runs. */
  async function statementsDuring(store: Store, work: () => Promise<void>): Promise<string[]> {
    const seen: string[] = [];
    const methods = ['all', 'get', 'value', 'column', 'rows', 'run', 'exec'] as const;
    const saved = methods.map((m) => [m, (store as unknown as Record<string, unknown>)[m]] as const);
    for (const [m, original] of saved) {
      (store as unknown as Record<string, unknown>)[m] = (sql: string, ...rest: unknown[]) => {
        seen.push(sql);
        return (original as (...args: unknown[]) => unknown).call(store, sql, ...rest);
      };
    }
    try {
      await work();
    } finally {
      for (const [m] of saved) delete (store as unknown as Record<string, unknown>)[m];
    }
    return seen;
  }

  /** A new key with cati_administrate, used once on each server (so both have it cached). */
  async function cachedKey(): Promise<{ id: number; key: string }> {
    const made = await a.json('POST', '/admin/keys', { body: { name: 'cached', permissions: ['cati_administrate'] } });
    expect(made.status).toBe(201);
    for (const server of [a, b]) expect((await server.json('GET', '/cati/blacklist?$top=1', { key: made.body.key })).status).toBe(200);
    return { id: made.body.id as number, key: made.body.key as string };
  }

  it('a write through one is read through the other at once, in both directions', async () => {
    const created = await a.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '31201112233', Comment: 'via A' } });
    expect(created.status).toBe(201);
    const id = created.body.Id as number;
    const read = await b.json('GET', `/cati/blacklist(${id})`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ Id: id, TelephoneNumber: '31201112233', Comment: 'via A' });
    const etag = read.headers.get('etag')!;
    expect((await b.json('PATCH', `/cati/blacklist(${id})`, { body: { Comment: 'via B' }, headers: { 'if-match': etag } })).status).toBe(200);
    expect((await a.json('GET', `/cati/blacklist(${id})`)).body.Comment).toBe('via B');
    // A stale ETag from A after B's change: 412 on either server.
    expect((await a.json('PATCH', `/cati/blacklist(${id})`, { body: { Comment: 'late' }, headers: { 'if-match': etag } })).status).toBe(412);
    const check = await b.json('GET', `/cati/blacklist/Controller.Check(telephoneNumber='31201112233')`);
    expect(check.body).toMatchObject({ value: true, MatchedId: id });
  });

  it('the same collection answers are identical through both servers', async () => {
    await a.json('POST', '/cati/blacklist/Controller.Import', { body: { BlackListItems: Array.from({ length: 30 }, (_, i) => `3130${1000 + i}`) } });
    const path = '/cati/blacklist?$filter=startswith(TelephoneNumber,%273130%27)&$orderby=TelephoneNumber%20desc&$count=true&$top=7';
    const [fromA, fromB] = await Promise.all([a.json('GET', path), b.json('GET', path)]);
    expect(fromA.status).toBe(200);
    expect(fromB.body.value).toEqual(fromA.body.value); // @odata.context names each server's own origin
    expect(fromA.body.value).toHaveLength(7);
    expect([fromA.body['@odata.count'], fromB.body['@odata.count']]).toEqual([30, 30]);
  });

  it('/events of one server carries the changes made through the other', async () => {
    const stream = await openEvents(b.url, (await b.server.ctx.keys.create('watcher', ['cati_administrate'])).key);
    try {
      expect(stream.status).toBe(200);
      const created = await a.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '31209998877', Type: 'StartWith' } });
      expect(created.status).toBe(201);
      // This row's event: B may still be delivering the previous test's import (it learns of A's writes by NOTIFY,
      // so a stream opened on B just after that import can see its last events arrive; the row's event comes after).
      const event = await stream.waitFor((e) => e.event === 'blacklist' && JSON.parse(e.data).id === created.body.Id, { timeoutMs: 10_000 });
      expect(JSON.parse(event.data)).toMatchObject({ action: 'created', id: created.body.Id, TelephoneNumber: '31209998877' });
    } finally {
      stream.close();
    }
  });

  it('a key revoked through one server stops working on the other', async () => {
    const made = await a.json('POST', '/admin/keys', { body: { name: 'short-lived', permissions: ['cati_administrate'] } });
    expect(made.status).toBe(201);
    expect((await b.json('GET', '/cati/blacklist?$top=1', { key: made.body.key })).status).toBe(200);
    expect((await a.json('DELETE', `/admin/keys/${made.body.id}`)).status).toBe(204);
    expect((await b.json('GET', '/cati/blacklist?$top=1', { key: made.body.key })).status).toBe(401);
  });

  it('a request with a cached key asks the database nothing about keys (revocations are announced)', async () => {
    const { key } = await cachedKey();
    const sql = await statementsDuring(b.server.ctx.store, async () => {
      expect((await b.json('GET', '/cati/blacklist?$top=1', { key })).status).toBe(200);
    });
    expect(sql.length).toBeGreaterThan(0); // the request's own read went through the store
    expect(sql.filter((s) => s.includes('api_keys'))).toEqual([]);
  });

  it('a key revoked outside both servers (the keys CLI, SQL by hand) is refused by both at once', async () => {
    const { id, key } = await cachedKey();
    await admin.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2', [Date.now(), id]);
    // The NOTIFY reaches each server's listener within milliseconds; well inside the 5 s the cache would keep a key.
    for (const server of [a, b]) await expect.poll(async () => (await server.json('GET', '/cati/blacklist?$top=1', { key })).status, { timeout: 2000, interval: 20 }).toBe(401);
  });

  it('a key revoked while the listeners are cut off is refused by both, then and after they reconnect', async () => {
    const { id, key } = await cachedKey();
    const listeners = `SELECT pid FROM pg_stat_activity WHERE application_name = 'cati-events' AND datname = current_database()`;
    const before = (await admin.query(listeners)).rows.map((r) => r.pid as number);
    expect(before).toHaveLength(2);
    await admin.query(`SELECT pg_terminate_backend(pid) FROM (${listeners}) l`);
    await admin.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2', [Date.now(), id]); // announced to no one
    for (const server of [a, b]) await expect.poll(async () => (await server.json('GET', '/cati/blacklist?$top=1', { key })).status, { timeout: 2000, interval: 20 }).toBe(401);
    await expect.poll(async () => (await admin.query(listeners)).rows.filter((r) => !before.includes(r.pid as number)).length, { timeout: 10_000 }).toBe(2);
    for (const server of [a, b]) expect((await server.json('GET', '/cati/blacklist?$top=1', { key })).status).toBe(401);
    // And a key still valid keeps working on both after the reconnection, again with no key query per request.
    const fresh = await cachedKey();
    const sql = await statementsDuring(b.server.ctx.store, async () => {
      expect((await b.json('GET', '/cati/blacklist?$top=1', { key: fresh.key })).status).toBe(200);
    });
    expect(sql.filter((s) => s.includes('api_keys'))).toEqual([]);
  });
});

describe.skipIf(!onPostgres || !postgresBinDir())('a lost PostgreSQL connection', () => {
  let cluster: PgCluster;
  let t: TestServer;
  beforeAll(async () => {
    cluster = await PgCluster.create(); // a cluster of its own: stopping it must not touch the other tests
    t = await startTestServer({ database: await createDatabase(cluster.url()) });
  });
  afterAll(async () => {
    await t?.close();
    cluster?.remove();
  });

  it('answers 503 with a message while the database is down, never half-writes an import, and recovers by itself', async () => {
    expect((await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '31205550001' } })).status).toBe(201);
    cluster.stop();
    const down = await t.json('GET', '/cati/blacklist');
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
    expect(down.body.error.message).toMatch(/database/i);
    const importing = await t.json('POST', '/cati/blacklist/Controller.Import', { body: { BlackListItems: ['31205550002', '31205550003'] } });
    expect(importing.status).toBe(503);
    expect((await t.json('POST', '/optout/lists', { body: { projectId: 'p1' } })).status).toBe(503);
    cluster.start();
    // The first request after the restart may still meet a connection the restart cut (503); then it works.
    await expect.poll(async () => (await t.json('GET', '/cati/blacklist?$count=true')).status).toBe(200);
    const after = await t.json('GET', '/cati/blacklist?$count=true');
    expect(after.body['@odata.count']).toBe(1); // the refused import left nothing
    expect((await t.json('POST', '/cati/blacklist/Controller.Import', { body: { BlackListItems: ['31205550002', '31205550003'] } })).body.Added).toBe(2);
  });
});
