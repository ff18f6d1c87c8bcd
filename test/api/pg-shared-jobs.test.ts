/**
 * docs/deployment.md#several-servers: scrub and blacklist import jobs any server answers. Two servers on one
 * PostgreSQL database: a job started on A is read, downloaded (the same bytes) and deleted through B; a job whose
 * server stopped ends `failed` with the reason. Runs in the `postgres` project (skipped in the SQLite one).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngine } from '../helpers/engine.ts';
import { freshPgDatabase } from '../helpers/postgres.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const onPostgres = testEngine() === 'postgres';

function form(content: BlobPart, name: string, fields: Record<string, string> = {}): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  fd.append('file', new Blob([content]), name);
  return fd;
}

async function waitDone(t: TestServer, path: string): Promise<any> {
  const end = Date.now() + 90_000;
  while (Date.now() < end) {
    const r = await t.json('GET', path);
    expect(r.status).toBe(200);
    if (r.body.State !== 'running') return r.body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${path} did not finish`);
}

async function until(check: () => Promise<boolean> | boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

/** A call list of `n` numbers, every 10th blacklisted below. */
const list = (n: number) => 'Name,Phone\n' + Array.from({ length: n }, (_, i) => `P${i},+31 20 ${String(5_000_000 + i).padStart(7, '0')}`).join('\n') + '\n';

describe.skipIf(!onPostgres)('jobs any server answers (two servers on one PostgreSQL database)', { timeout: 120_000 }, () => {
  let a: TestServer;
  let b: TestServer;
  let admin: pg.Client;
  beforeAll(async () => {
    const database = await freshPgDatabase();
    a = await startTestServer({ database });
    b = await startTestServer({ database });
    admin = new pg.Client({ connectionString: database });
    await admin.connect();
    const items = Array.from({ length: 100 }, (_, i) => `31205${String(i * 10).padStart(6, '0')}`);
    expect((await a.json('POST', '/cati/blacklist/Controller.Import', { body: { BlackListItems: items } })).status).toBeLessThan(300);
  });
  afterAll(async () => {
    await admin?.end();
    await a?.close();
    await b?.close();
  });

  it('a scrub started on A: progress, list and downloads through B give the same answers and bytes', async () => {
    const r = await a.json('POST', '/cati/scrubs', { raw: form(list(20_000), 'shared.csv') });
    expect(r.status).toBe(202);
    const path = `/cati/scrubs('${r.body.Id}')`;
    const first = await b.json('GET', path);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ Id: r.body.Id, FileName: 'shared.csv' });
    const done = await waitDone(b, path);
    expect(done).toMatchObject({ State: 'done', Rows: 20_000, Processed: 20_000, Removed: 100, Kept: 19_900 });
    expect((await a.json('GET', path)).body).toEqual(done);
    expect((await b.json('GET', '/cati/scrubs')).body.value.map((j: { Id: string }) => j.Id)).toContain(r.body.Id);
    for (const name of ['kept', 'removed']) {
      const fromA = Buffer.from(await (await a.request('GET', `${path}/${name}`)).arrayBuffer());
      const fromB = Buffer.from(await (await b.request('GET', `${path}/${name}`)).arrayBuffer());
      expect(fromB.length).toBeGreaterThan(3);
      expect(fromB.equals(fromA), name).toBe(true);
    }
    const xlsx = await b.request('GET', `${path}/kept?$format=xlsx`);
    expect(xlsx.status).toBe(200);
    // DELETE through B: gone on both servers, its files out of the database.
    expect((await b.request('DELETE', path)).status).toBe(204);
    expect((await a.json('GET', path)).status).toBe(404);
    expect((await b.json('GET', path)).status).toBe(404);
    expect((await admin.query('SELECT count(*)::int AS n FROM job_files WHERE job_id = $1', [r.body.Id])).rows[0].n).toBe(0);
  });

  it('a running scrub deleted through B stops on A and leaves no file', async () => {
    const r = await a.json('POST', '/cati/scrubs', { raw: form(list(100_000), 'big.csv') });
    expect(r.status).toBe(202);
    const path = `/cati/scrubs('${r.body.Id}')`;
    expect((await b.request('DELETE', path)).status).toBe(204);
    expect((await a.json('GET', path)).status).toBe(404);
    expect(await until(() => !existsSync(join(a.dataDir, 'scrubs', r.body.Id)), 10_000)).toBe(true);
    const left = await admin.query('SELECT (SELECT count(*)::int FROM jobs WHERE id = $1) + (SELECT count(*)::int FROM job_files WHERE job_id = $1) AS n', [r.body.Id]);
    expect(left.rows[0].n).toBe(0);
  });

  it('a blacklist import started on A is followed through B to the same answer', async () => {
    const file = 'Number\n' + Array.from({ length: 2000 }, (_, i) => `3130${String(i).padStart(7, '0')}`).join('\n') + '\n';
    const r = await a.json('POST', '/cati/blacklist/imports', { raw: form(file, 'numbers.csv') });
    expect(r.status).toBe(202);
    const path = `/cati/blacklist/imports('${r.body.Id}')`;
    const done = await waitDone(b, path);
    expect(done).toMatchObject({ State: 'done', FileName: 'numbers.csv', Rows: 2000, Processed: 2000, Added: 2000 });
    expect((await a.json('GET', path)).body).toEqual(done);
  });

  it('a job whose server stopped ends failed with the reason, on any server', async () => {
    const owner = (await admin.query("SELECT owner FROM jobs WHERE kind = 'blacklist' LIMIT 1")).rows[0].owner as string;
    const data = JSON.stringify({ fileName: 'x.csv', encoding: 'utf-8', rows: 10, processed: 3, added: 0, duplicates: 0, invalid: 0, invalidRows: [] });
    const now = Date.now();
    // A heartbeat two minutes old: its server stopped without a word.
    await admin.query("INSERT INTO jobs (id, kind, owner, server_id, state, data, created_at, updated_at) VALUES ('stale-1', 'blacklist', $1, 'gone:/x', 'running', $2, $3, $4)", [owner, data, now, now - 120_000]);
    const stale = await b.json('GET', "/cati/blacklist/imports('stale-1')");
    expect(stale.status).toBe(200);
    expect(stale.body).toMatchObject({ State: 'failed', Processed: 3 });
    expect(stale.body.Error).toMatch(/the server running it stopped/);
    // A job of A's with a fresh heartbeat: A stops and starts again, and fails it at its start.
    const serverA = `${(await admin.query("SELECT server_id FROM jobs WHERE kind = 'blacklist' AND id <> 'stale-1' LIMIT 1")).rows[0].server_id}`;
    await admin.query("INSERT INTO jobs (id, kind, owner, server_id, state, data, created_at, updated_at) VALUES ('mine-1', 'blacklist', $1, $2, 'running', $3, $4, $4)", [owner, serverA, data, Date.now()]);
    expect((await b.json('GET', "/cati/blacklist/imports('mine-1')")).body.State).toBe('running');
    await a.server.close();
    a = await startTestServer({ database: b.server.ctx.config.database!, dataDir: a.dataDir });
    const restarted = await b.json('GET', "/cati/blacklist/imports('mine-1')");
    expect(restarted.body.State).toBe('failed');
    expect(restarted.body.Error).toMatch(/the server running it stopped/);
  });
});
