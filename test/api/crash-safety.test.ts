/**
 * Faults against a real server process (`node --import tsx server/cli.ts serve`, as `npm run serve` runs it):
 * SIGTERM with a slow request in flight (the request completes, the process exits 0), and kill -9 during an
 * opt-out import and during a history ingest batch (after a restart each is all or nothing). The kill moments
 * vary per trial; the assertions hold whatever moment the kill lands on.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveUrl, type ServeProcess } from '../helpers/cli-server.ts';

const KEY = 'crash-test-key-0123456789';
const env = { CATI_API_KEY: KEY };
let dataDir: string;
const running: ServeProcess[] = [];

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'cati-crash-'));
});
afterAll(() => {
  for (const p of running) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function start() {
  const s = await serveUrl(dataDir, env);
  running.push(s.proc);
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(s.url + path, {
      method,
      headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  return { ...s, call };
}

async function killHard(proc: ServeProcess) {
  proc.child.kill('SIGKILL');
  await proc.exitCode();
}

/** A multipart body whose file part is held open until `release()` (a slow client). */
function slowUpload(fileName: string, head: string, tail: string) {
  let release!: () => void;
  const enc = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(enc.encode(`--b\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\n\r\n${head}`));
      await new Promise<void>((resolve) => (release = resolve));
      controller.enqueue(enc.encode(`${tail}\r\n--b--\r\n`));
      controller.close();
    },
  });
  return { body, release: () => release() };
}

async function untilFileIn(dir: string) {
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; await sleep(5)) {
    if (existsSync(dir) && readdirSync(dir).length > 0) return;
  }
  throw new Error(`no upload appeared in ${dir}`);
}

describe('SIGTERM', () => {
  it('with a slow import in flight: the import completes, then the process exits 0', async () => {
    const s = await start();
    const list = (await s.call('POST', '/optout/lists', { projectId: 'p1' })).body.id as number;
    const rows = Array.from({ length: 1000 }, (_, i) => `late${i}@example.com`);
    const upload = slowUpload('slow.csv', `${rows.slice(0, 500).join('\n')}\n`, rows.slice(500).join('\n'));
    const answer = fetch(`${s.url}/optout/lists/${list}/emails/import`, {
      method: 'POST',
      body: upload.body,
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'multipart/form-data; boundary=b' },
      duplex: 'half',
    } as RequestInit);
    await untilFileIn(join(dataDir, 'uploads')); // the server is reading the request
    s.proc.child.kill('SIGTERM');
    upload.release();
    const res = await answer;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ newRows: 1000, duplicatedRows: 0, invalidRows: 0, Encoding: 'utf-8' });
    expect(await s.proc.exitCode()).toBe(0);
    // What it acknowledged is there after a restart.
    const again = await start();
    expect((await again.call('GET', `/optout/lists/${list}/emails?$pageSize=1`)).body.totalCount).toBe(1000);
    again.proc.child.kill('SIGTERM');
    expect(await again.proc.exitCode()).toBe(0);
  }, 60_000);
});

describe('kill -9', () => {
  /** Kill moments as fractions of how long the same operation takes uncut on this machine (measured first). */
  const FRACTIONS = [0.05, 0.25, 0.5, 0.7, 0.85, 0.97];
  const timed = async <T,>(work: () => Promise<T>) => {
    const t0 = Date.now();
    const result = await work();
    return { result, ms: Date.now() - t0 };
  };

  it(`during opt-out imports (${FRACTIONS.length} trials): after a restart each import is all or nothing`, async () => {
    const ROWS = 150_000;
    const file = Array.from({ length: ROWS }, (_, i) => `person${i}@domain${i % 300}.example`).join('\n');
    const outcomes: string[] = [];
    let s = await start();
    const importInto = async (projectId: string) => {
      const list = (await s.call('POST', '/optout/lists', { projectId })).body.id as number;
      const form = new FormData();
      form.append('file', new Blob([file]), 'big.csv');
      const answer = fetch(`${s.url}/optout/lists/${list}/emails/import`, { method: 'POST', body: form, headers: { authorization: `Bearer ${KEY}` } }).then(
        (r) => r.status,
        () => 'cut',
      );
      return { list, answer };
    };
    const uncut = await timed(async () => (await importInto('p99')).answer);
    expect(uncut.result).toBe(200);
    for (const [trial, fraction] of FRACTIONS.entries()) {
      const { list, answer } = await importInto(`p${100 + trial}`);
      const delay = Math.round(uncut.ms * fraction);
      await sleep(delay);
      await killHard(s.proc);
      const status = await answer;
      s = await start();
      const stored = (await s.call('GET', `/optout/lists/${list}/emails?$pageSize=1`)).body.totalCount as number;
      outcomes.push(`${delay} ms: ${status}, ${stored} stored`);
      expect([0, ROWS], `trial ${trial} (kill after ${delay} ms)`).toContain(stored);
      if (status === 200) expect(stored).toBe(ROWS); // acknowledged → durable
      expect(readdirSync(join(dataDir, 'uploads'))).toEqual([]); // the cut upload was cleaned at start
    }
    console.log(`kill -9 during imports (uncut: ${uncut.ms} ms): ${outcomes.join('; ')}`);
    s.proc.child.kill('SIGTERM');
    await s.proc.exitCode();
  }, 180_000);

  it(`during history ingest batches (${FRACTIONS.length} trials): after a restart each batch is all or nothing`, async () => {
    const BATCH = 10_000;
    let s = await start();
    expect((await s.call('POST', '/cati/surveys', { SurveyId: 'p1', SurveyName: 'One', State: 'Open' })).status).toBe(201);
    const interviewer = (await s.call('POST', '/cati/interviewerproperties', { Name: 'agent' })).body.InterviewerId as number;
    const count = async () => (await s.call('GET', '/cati/callhistory?$count=true&$top=0')).body['@odata.count'] as number;
    const outcomes: string[] = [];
    const ingest = (trial: number) => {
      const time = new Date(Date.now() - 3_600_000).toISOString();
      const value = Array.from({ length: BATCH }, (_, i) => ({ Time: time, SurveyId: 'p1', InterviewerId: interviewer, TelephoneNumber: `${trial}-${i}`, Duration: 1 }));
      return fetch(`${s.url}/cati/callhistory`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ value }),
      }).then(
        (r) => r.status,
        () => 'cut',
      );
    };
    const uncut = await timed(() => ingest(-1));
    expect(uncut.result).toBe(201);
    let before = await count();
    for (const [trial, fraction] of FRACTIONS.entries()) {
      const answer = ingest(trial);
      const delay = Math.round(uncut.ms * fraction);
      await sleep(delay);
      await killHard(s.proc);
      const status = await answer;
      s = await start();
      const after = await count();
      outcomes.push(`${delay} ms: ${status}, +${after - before}`);
      expect([before, before + BATCH], `trial ${trial} (kill after ${delay} ms)`).toContain(after);
      if (status === 201) expect(after).toBe(before + BATCH);
      before = after;
    }
    console.log(`kill -9 during ingest batches (uncut: ${uncut.ms} ms): ${outcomes.join('; ')}`);
    s.proc.child.kill('SIGTERM');
    await s.proc.exitCode();
  }, 180_000);
});
