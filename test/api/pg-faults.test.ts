/**
 * PostgreSQL faults under load (docs/deployment.md#postgresql, docs/deployment.md#reliability). Two servers on one
 * database of a cluster of the test's own; clients write through both (single creates, blacklist imports, opt-out
 * imports) while backends are killed (`pg_terminate_backend`) and the cluster is restarted. Expected: every
 * acknowledged write is stored, no import is partial, 503 with Retry-After while the database is away, recovery
 * without restarting our servers, and the /events consumers of both servers see every acknowledged change exactly
 * once (by id): a change's event is written by its own transaction (docs/events.md#exactly-once), whatever dies after
 * its COMMIT. Bounded: about 12 s of load, each request at most 30 s. Postgres project only.
 */
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngine } from '../helpers/engine.ts';
import { createDatabase, PgCluster, postgresBinDir } from '../helpers/pg-cluster.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { dataOf, openEvents, type SseStream } from '../helpers/sse.ts';

const onPostgres = testEngine() === 'postgres';

describe.skipIf(!onPostgres || !postgresBinDir())('PostgreSQL faults under load, two servers', () => {
  let cluster: PgCluster;
  let database: string;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    cluster = await PgCluster.create(); // its own cluster: restarting it must not touch the other tests
    database = await createDatabase(cluster.url());
    a = await startTestServer({ database });
    b = await startTestServer({ database });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    cluster?.remove();
  });

  /** Kills every backend of the test database but the killer's own (the servers' pools and LISTEN connections). */
  async function killBackends(): Promise<number> {
    const c = new pg.Client({ connectionString: cluster.url() });
    try {
      await c.connect();
      const r = await c.query("SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [
        new URL(database).pathname.slice(1),
      ]);
      return r.rows[0].n as number;
    } catch {
      return 0; // the cluster is restarting
    } finally {
      await c.end().catch(() => undefined);
    }
  }

  it('a change whose outbox row cannot be written is not committed either (503), and once retried is on both streams once', async () => {
    const key = (await b.server.ctx.keys.create('watcher-b', ['cati_administrate'])).key;
    const streams = [await openEvents(a.url, key), await openEvents(b.url, key)];
    const db = new pg.Client({ connectionString: database });
    await db.connect();
    try {
      // The next write to the outbox fails once (a sequence is not rolled back with the failing statement).
      await db.query(`CREATE SEQUENCE fail_once;
        CREATE FUNCTION fail_once() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
          IF nextval('fail_once') = 1 THEN RAISE EXCEPTION 'announcement lost' USING ERRCODE = '57P01'; END IF; RETURN NEW; END $$;
        CREATE TRIGGER fail_once BEFORE INSERT ON event_outbox FOR EACH ROW EXECUTE FUNCTION fail_once()`);
      const refused = await a.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '31777000001' } });
      expect(refused.status).toBe(503); // the event is written with the change: one fails, both fail
      expect((await db.query("SELECT count(*)::int AS n FROM blacklist WHERE telephone_number = '31777000001'")).rows[0].n).toBe(0);
      const created = await a.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '31777000001' } });
      expect(created.status).toBe(201);
      for (const stream of streams) await stream.waitFor((e) => e.event === 'blacklist' && dataOf(e).id === created.body.Id, { timeoutMs: 15_000 });
      await sleep(1000);
      for (const stream of streams) expect(stream.events.filter((e) => e.event === 'blacklist' && dataOf(e).TelephoneNumber === '31777000001')).toHaveLength(1);
    } finally {
      for (const stream of streams) stream.close();
      await db.query('DROP TRIGGER IF EXISTS fail_once ON event_outbox; DROP FUNCTION IF EXISTS fail_once(); DROP SEQUENCE IF EXISTS fail_once');
      await db.end();
    }
  });

  it('a change whose database goes away right after its COMMIT is answered and on both servers\' streams once', async () => {
    const key = (await b.server.ctx.keys.create('watcher-killed', ['cati_administrate'])).key;
    const streams = [await openEvents(a.url, key), await openEvents(b.url, key)];
    const query = pg.Client.prototype.query;
    let cut = 0;
    // The next COMMIT commits; before its answer is used, the cluster stops (every connection cut: the committing
    // one, both servers' listeners, the pools) and comes back a second later. Nothing the writer would run after its
    // commit (a read of the record, a publish) can reach the database in between.
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const result = (query as (...a: unknown[]) => unknown).apply(this, args);
      if (args[0] !== 'COMMIT' || cut++ > 0) return result;
      return (result as Promise<unknown>).then((answer) => {
        cluster.stop();
        setTimeout(() => cluster.start(), 1000);
        return answer;
      });
    } as typeof query;
    try {
      const created = await a.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '31777000003' } });
      expect(cut).toBeGreaterThan(0);
      // Committed; the answer needs the record read back, which may meet the database still away (503).
      expect([201, 503]).toContain(created.status);
      await expect.poll(async () => (await b.json('GET', "/cati/blacklist?$filter=TelephoneNumber%20eq%20'31777000003'")).body?.value?.length, { timeout: 20_000 }).toBe(1);
      const mine = (e: { event: string; data: string }) => e.event === 'blacklist' && dataOf(e).TelephoneNumber === '31777000003';
      for (const stream of streams) await stream.waitFor(mine, { timeoutMs: 20_000 });
      await sleep(1000);
      for (const stream of streams) expect(stream.events.filter(mine)).toHaveLength(1);
    } finally {
      pg.Client.prototype.query = query;
      for (const stream of streams) stream.close();
    }
  });

  it('a write whose COMMIT answer is lost (the connection cut as it committed) is answered 201 and announced once on both servers', async () => {
    const key = (await b.server.ctx.keys.create('watcher-commit', ['cati_administrate'])).key;
    const streams = [await openEvents(a.url, key), await openEvents(b.url, key)];
    const query = pg.Client.prototype.query;
    let cut = 0;
    // The next COMMIT reaches the database and commits, and then its connection "breaks" before the answer.
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const result = (query as (...a: unknown[]) => unknown).apply(this, args);
      if (args[0] !== 'COMMIT' || cut++ > 0) return result;
      return (result as Promise<unknown>).then(() => Promise.reject(new Error('Connection terminated unexpectedly')));
    } as typeof query;
    try {
      const created = await a.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '31777000002' } });
      expect(cut).toBeGreaterThan(0);
      expect(created.status).toBe(201);
      const id = created.body.Id as number;
      expect((await b.json('GET', `/cati/blacklist(${id})`)).status).toBe(200);
      for (const stream of streams) await stream.waitFor((e) => e.event === 'blacklist' && dataOf(e).id === id, { timeoutMs: 15_000 });
      await sleep(1000);
      for (const stream of streams) expect(stream.events.filter((e) => e.event === 'blacklist' && dataOf(e).id === id)).toHaveLength(1);
    } finally {
      pg.Client.prototype.query = query;
      for (const stream of streams) stream.close();
    }
  });

  it('no acknowledged write lost, no partial import, 503 + Retry-After while down, recovery and /events exactly once on both servers', async () => {
    const key = (await a.server.ctx.keys.create('watcher', ['cati_administrate'])).key;
    const streams: SseStream[] = [await openEvents(a.url, key), await openEvents(b.url, key)];
    const list = (await a.json('POST', '/optout/lists', { body: { projectId: 'p1' } })).body.id as number;
    const acknowledged = new Map<string, number>(); // telephone number → id, single creates
    const importsAcked: string[] = []; // prefixes of acknowledged blacklist imports
    const optoutAcked: string[] = [];
    const unexpected: string[] = [];
    let down503 = 0;
    let seq = 0;
    const stopAt = Date.now() + 12_000;
    const check = (r: { status: number; headers: Headers; body: unknown }, what: string) => {
      if (r.status === 503 || r.status === 429) {
        if (!/^\d+$/.test(r.headers.get('retry-after') ?? '')) unexpected.push(`${what}: ${r.status} without Retry-After`);
        down503++;
        return false;
      }
      if (r.status >= 300) unexpected.push(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
      return r.status < 300;
    };
    const client = async (n: number) => {
      for (let i = 0; Date.now() < stopAt; i++) {
        const server = (n + i) % 2 ? a : b;
        const id = seq++;
        if (i % 5 === 4) {
          const prefix = `3199${String(id).padStart(5, '0')}`;
          const r = await server.json('POST', '/cati/blacklist/Controller.Import', { body: { BlackListItems: Array.from({ length: 50 }, (_, j) => `${prefix}${String(j).padStart(2, '0')}`) } }).catch(() => undefined);
          if (r && check(r, 'import')) importsAcked.push(prefix);
        } else if (i % 7 === 6) {
          const fd = new FormData();
          const tag = `o${id}`;
          fd.append('file', new Blob([Array.from({ length: 300 }, (_, j) => `${tag}-${j}@faults.example`).join('\n')]), 'a.csv');
          const r = await server.json('POST', `/optout/lists/${list}/emails/import`, { raw: fd }).catch(() => undefined);
          if (r && check(r, 'optout import')) optoutAcked.push(tag);
        } else {
          const number = `3188${String(id).padStart(7, '0')}`;
          const r = await server.json('POST', '/cati/blacklist', { body: { TelephoneNumber: number } }).catch(() => undefined);
          if (r && check(r, 'create')) acknowledged.set(number, r.body.Id as number);
        }
      }
    };
    const faults = (async () => {
      let killed = 0;
      for (let round = 0; Date.now() < stopAt - 2000; round++) {
        await sleep(700);
        if (round === 6) {
          cluster.stop(); // the whole cluster away for about 2 s
          const down = await a.json('GET', '/cati/blacklist?$top=1');
          expect(down.status).toBe(503);
          expect(down.headers.get('retry-after')).toMatch(/^\d+$/);
          await sleep(2000);
          cluster.start();
        } else killed += await killBackends();
      }
      return killed;
    })();
    const [killed] = await Promise.all([faults, ...Array.from({ length: 8 }, (_, n) => client(n))]);
    expect(killed).toBeGreaterThan(0);
    expect(unexpected).toEqual([]);

    // Recovery without restarting our servers.
    for (const s of [a, b]) await expect.poll(async () => (await s.json('GET', '/cati/blacklist?$top=1')).status, { timeout: 30_000 }).toBe(200);

    const expected = [...acknowledged.values()]; // ids whose change was acknowledged: every stream must carry each once
    const db = new pg.Client({ connectionString: database });
    await db.connect();
    try {
      const stored = new Map((await db.query("SELECT telephone_number AS n, id FROM blacklist WHERE telephone_number LIKE '3188%'")).rows.map((r) => [r.n as string, Number(r.id)]));
      for (const [number, id] of acknowledged) expect(stored.get(number), number).toBe(id);
      const perImport = (await db.query("SELECT substr(telephone_number, 1, 9) AS p, count(*)::int AS c FROM blacklist WHERE telephone_number LIKE '3199%' GROUP BY 1")).rows;
      for (const r of perImport) expect(r.c, `import ${r.p}`).toBe(50); // all or nothing
      const imported = new Set(perImport.map((r) => r.p as string));
      for (const p of importsAcked) expect(imported.has(p), p).toBe(true);
      const importedIds = await db.query('SELECT id FROM blacklist WHERE substr(telephone_number, 1, 9) = ANY($1::text[])', [importsAcked]);
      for (const r of importedIds.rows) expected.push(Number(r.id));
      const perOptout = (await db.query("SELECT split_part(email_address, '-', 1) AS t, count(*)::int AS c FROM optout_emails WHERE list_id = $1 GROUP BY 1", [list])).rows;
      for (const r of perOptout) expect(r.c, `opt-out import ${r.t}`).toBe(300);
      const optoutStored = new Set(perOptout.map((r) => r.t as string));
      for (const t of optoutAcked) expect(optoutStored.has(t), t).toBe(true);
    } finally {
      await db.end();
    }
    console.log(`faults: ${killed} backends killed, 1 restart; ${acknowledged.size} creates, ${importsAcked.length} blacklist and ${optoutAcked.length} opt-out imports acknowledged; ${down503} answers 503/429`);
    expect(acknowledged.size).toBeGreaterThan(10);

    // /events: every acknowledged change (creates, imported items), exactly once, on both servers' streams.
    for (const [name, stream] of [['A', streams[0]!], ['B', streams[1]!]] as const) {
      await stream.until(() => expected.every((id) => stream.events.some((e) => e.event === 'blacklist' && dataOf(e).id === id)), 20_000).catch(() => undefined);
      const seen = new Map<number, number>();
      for (const e of stream.events) if (e.event === 'blacklist') seen.set(dataOf(e).id as number, (seen.get(dataOf(e).id as number) ?? 0) + 1);
      const missing = expected.filter((id) => !seen.has(id));
      const twice = [...seen].filter(([, c]) => c > 1).map(([id]) => id);
      expect({ server: name, missing, twice }).toEqual({ server: name, missing: [], twice: [] });
      stream.close();
    }
  }, 120_000);
});
