/**
 * CONTRACT §12 on PostgreSQL, over HTTP: two server processes' worth of servers on one database serve the same
 * data (a write through one is read through the other at once, /events of one carries the other's changes), and
 * a database that goes away answers 503 with a message, never a crash or a half-written import, and comes back by
 * itself. Runs in the `postgres` project (skipped in the SQLite one).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, PgCluster, postgresBinDir } from '../helpers/pg-cluster.ts';
import { testEngine } from '../helpers/engine.ts';
import { freshPgDatabase } from '../helpers/postgres.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { openEvents } from '../helpers/sse.ts';

const onPostgres = testEngine() === 'postgres';

describe.skipIf(!onPostgres)('two servers on one PostgreSQL database', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    const database = await freshPgDatabase();
    a = await startTestServer({ database });
    b = await startTestServer({ database });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

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
      const event = await stream.waitFor((e) => e.event === 'blacklist', { timeoutMs: 10_000 });
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
