import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { childProcesses } from '../helpers/child-processes.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { singleEntryBomb } from '../helpers/zip-bombs.ts';

// docs/cati-api.md#scrubs: who sees a scrub, how long it lives, the audit row, the phone region, a failed scrub.
function form(content: BlobPart, name: string, fields: Record<string, string> = {}): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  fd.append('file', new Blob([content]), name);
  return fd;
}

async function waitDone(t: TestServer, path: string, key?: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const r = await t.json('GET', path, key ? { key } : {});
    if (r.body?.State !== 'running') return r.body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('scrub did not finish');
}

async function newKey(t: TestServer, permissions: string[], projects?: string[]): Promise<string> {
  const r = await t.json('POST', '/admin/keys', { body: { name: `k-${permissions.join('-')}-${Math.random()}`, permissions, ...(projects ? { projects } : {}) } });
  expect(r.status).toBe(201);
  return r.body.key;
}

describe('ownership, permissions, retention, audit', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
    await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '0205550198' } });
  });
  afterAll(() => t.close());

  it('a job belongs to the key that made it: others → 404, company_administrate sees it; cati_read may scrub, optout keys may not', async () => {
    const reader = await newKey(t, ['cati_read']);
    const other = await newKey(t, ['cati_integrate']);
    const mailer = await newKey(t, ['optout_administrate']);
    expect((await t.json('POST', '/cati/scrubs', { raw: form('0205550198\n', 'a.csv'), key: mailer })).status).toBe(403);
    const r = await t.json('POST', '/cati/scrubs', { raw: form('0205550198\n1234\n', 'a.csv'), key: reader });
    expect(r.status).toBe(202);
    const path = `/cati/scrubs('${r.body.Id}')`;
    expect(await waitDone(t, path, reader)).toMatchObject({ State: 'done', Removed: 1, Kept: 1 });
    expect((await t.json('GET', path, { key: other })).status).toBe(404);
    expect((await t.request('GET', `${path}/kept`, { key: other })).status).toBe(404);
    expect((await t.request('DELETE', path, { key: other })).status).toBe(404);
    expect((await t.json('GET', '/cati/scrubs', { key: other })).body.value).toEqual([]);
    expect((await t.json('GET', '/cati/scrubs', { key: reader })).body.value.map((j: any) => j.Id)).toEqual([r.body.Id]);
    expect((await t.json('GET', path)).status).toBe(200); // the test key has company_administrate
    expect((await t.json('GET', `/optout/scrubs/${r.body.Id}`)).status).toBe(404); // a CATI job is not an opt-out job
    const audit = await t.server.ctx.store.all<{ actor: string; changes: string }>("SELECT actor, changes FROM audit_log WHERE entity = 'scrubs' AND entity_id = ?", [r.body.Id]);
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0]!.changes)).toMatchObject({ Kind: 'cati', FileName: 'a.csv', State: 'done', Rows: 2, Kept: 1, Removed: 1, Invalid: 0 });
  });

  it('a zip bomb → 400/413 and the server keeps answering', async () => {
    const bomb = await singleEntryBomb(300);
    const r = await t.json('POST', '/cati/scrubs', { raw: form(new Uint8Array(bomb), 'bomb.xlsx') });
    expect([400, 413]).toContain(r.status);
    expect(r.body.error.message).toMatch(/cannot be read safely|expands to more than|memory/);
    expect((await t.json('GET', '/healthz')).status).toBe(200);
  });

  it('a scrub that fails after it was accepted says why and leaves no file', async () => {
    await t.server.ctx.store.exec('ALTER TABLE blacklist RENAME TO blacklist_away');
    try {
      const r = await t.json('POST', '/cati/scrubs', { raw: form('0205550198\n', 'fails.csv') });
      expect(r.status).toBe(202);
      const job = await waitDone(t, `/cati/scrubs('${r.body.Id}')`);
      expect(job.State).toBe('failed');
      expect(job.Error).toMatch(/The scrub failed/);
      expect(job.FinishedAt).not.toBeNull();
      expect(existsSync(join(t.dataDir, 'scrubs', r.body.Id))).toBe(false);
      expect(readdirSync(join(t.dataDir, 'uploads'))).toEqual([]);
      expect((await t.request('GET', `/cati/scrubs('${r.body.Id}')/kept`)).status).toBe(409);
    } finally {
      await t.server.ctx.store.exec('ALTER TABLE blacklist_away RENAME TO blacklist');
    }
  });
});

/** This process's children that are scrub jobs (server/scrub/scrub-job-process.ts). */
const scrubProcesses = () => childProcesses('scrub-job-process');

// docs/cati-api.md#scrubs: a scrub runs in a process of its own, which the system takes back, memory and all, when it ends.
describe.runIf(process.platform === 'linux')('a process of its own', () => {
  let t: TestServer;
  const rows = 'Phone\n' + Array.from({ length: 300_000 }, (_, i) => `06${String(10_000_000 + i)}`).join('\n') + '\n';
  beforeAll(async () => {
    t = await startTestServer();
    await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '0610000007' } });
  });
  afterAll(() => t.close());

  /** Starts a scrub of `rows`; answers its id and its process (one this file did not see before). */
  async function startScrub(): Promise<{ id: string; pid: number }> {
    const before = scrubProcesses();
    const r = await t.json('POST', '/cati/scrubs', { raw: form(rows, 'many.csv') });
    expect(r.status).toBe(202);
    const started = scrubProcesses().filter((pid) => !before.includes(pid));
    expect(started).toHaveLength(1);
    return { id: r.body.Id, pid: started[0]! };
  }

  it('runs each scrub in a process that is gone once the job is done', async () => {
    const { id, pid } = await startScrub();
    expect(await waitDone(t, `/cati/scrubs('${id}')`)).toMatchObject({ State: 'done', Rows: 300_000, Removed: 1 });
    await vi.waitFor(() => expect(scrubProcesses()).not.toContain(pid), { timeout: 5000 });
  });

  it('DELETE stops the running process and leaves none of its stored chunks', async () => {
    const { id, pid } = await startScrub();
    expect((await t.request('DELETE', `/cati/scrubs('${id}')`)).status).toBe(204);
    expect(scrubProcesses()).not.toContain(pid);
    expect(await t.server.ctx.store.value('SELECT count(*) FROM job_files WHERE job_id = ?', [id])).toBe(0);
    expect(existsSync(join(t.dataDir, 'scrubs', id))).toBe(false);
  });
});

describe('retention', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ scrubRetentionMs: 5000 });
  });
  afterAll(() => t.close());

  it('after the retention time the job and its files are gone', async () => {
    const r = await t.json('POST', '/cati/scrubs', { raw: form('0205550198\n', 'old.csv') });
    const path = `/cati/scrubs('${r.body.Id}')`;
    await waitDone(t, path);
    expect(existsSync(join(t.dataDir, 'scrubs', r.body.Id))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 5200));
    expect((await t.json('GET', path)).status).toBe(404);
    for (let i = 0; i < 40 && existsSync(join(t.dataDir, 'scrubs', r.body.Id)); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(existsSync(join(t.dataDir, 'scrubs', r.body.Id))).toBe(false);
  });

});

describe('phone region and restart', () => {
  it('with --phone-region NL every spelling of a blacklisted number is removed; a restart leaves no scrub file on disk and the done job answers from the database', async () => {
    let t = await startTestServer({ phoneRegion: 'NL' });
    const dataDir = t.dataDir;
    try {
      await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '020 555 0198' } });
      await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '0900', Type: 'StartWith' } });
      const list = 'phone\n+31 (0)20 555-0198\n0031 20 555 0198\n020 555 0198\n+31 900 1234567\n020 555 0199\n';
      const r = await t.json('POST', '/cati/scrubs', { raw: form(list, 'nl.csv') });
      const job = await waitDone(t, `/cati/scrubs('${r.body.Id}')`);
      expect(job).toMatchObject({ Rows: 5, Removed: 4, Kept: 1 });
      const removed = await (await t.request('GET', `/cati/scrubs('${r.body.Id}')/removed`)).text();
      expect(removed).toContain('+31 900 1234567,blacklist');
      expect(removed).toContain(',31900,StartWith,319001234567');
      mkdirSync(join(dataDir, 'scrubs', 'left-over'), { recursive: true });
      writeFileSync(join(dataDir, 'scrubs', 'left-over', 'kept.jsonl'), '[]\n');
      await t.server.close();
      t = await startTestServer({ phoneRegion: 'NL', dataDir });
      expect(readdirSync(join(dataDir, 'scrubs'))).toEqual([]);
      // The job's state and files are in the database (docs/cati-api.md#scrubs): the same answer and bytes after the restart.
      expect((await t.json('GET', `/cati/scrubs('${r.body.Id}')`)).body).toMatchObject({ State: 'done', Rows: 5, Removed: 4, Kept: 1 });
      expect(await (await t.request('GET', `/cati/scrubs('${r.body.Id}')/removed`)).text()).toBe(removed);
    } finally {
      await t.close();
    }
  });
});
