/**
 * Mixed soak (`npm run bench -- soak`, or `node --import tsx test/bench/soak-bench.ts [clients] [seconds]`),
 * docs/deployment.md#reliability: 50 clients on loopback for 20 s (bounded: each request times out after 30 s, a run
 * stops at the deadline or after 20,000 requests) against a real server process: collection reads, opt-out list
 * reads, single writes, blacklist imports (JSON) and small opt-out imports (multipart, 2,000 rows; 5% of the
 * requests). Two runs, each on a fresh server: first the bare baseline (the same mix with the opt-out imports' share
 * read instead), then the full mix; then 20 opt-out imports one at a time on the quiet server (an import's own time).
 * Reports p50/p99 overall and per kind, requests per second, the opt-out imports' p99 separately (admitted
 * ones, 200), the count of 429/503 (load shed: an import that cannot start soon is refused with Retry-After)
 * and of failures (other 5xx, connection errors, no answer), and the load average. Goal: p99 < 1 s on an
 * idle machine, no failures. Exits non-zero only on failures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { quantile, report, startProcess } from './bench-tools.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CLIENTS = Number(process.argv[2] ?? 50);
const SECONDS = Number(process.argv[3] ?? 20);
const MAX_REQUESTS = 20_000;
const REQUEST_TIMEOUT_MS = 30_000;
const KEY = 'bench-key-0123456789abcdef';

const startServer = (dataDir: string) => startProcess(['--import', 'tsx', join(ROOT, 'server/cli.ts'), 'serve', '--port', '0', '--data-dir', dataDir], KEY);

const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS + 8 });

/** One request; resolves with the status, or 0 for a connection error or no answer within REQUEST_TIMEOUT_MS. */
function send(url: string, method: string, body?: Buffer, type?: string): Promise<number> {
  return new Promise((ok) => {
    const headers: Record<string, string> = { authorization: `Bearer ${KEY}` };
    if (body) Object.assign(headers, { 'content-type': type!, 'content-length': String(body.length) });
    const req = request(url, { agent, method, headers, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      res.resume();
      res.on('end', () => ok(res.statusCode!));
      res.on('error', () => ok(0));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => ok(0));
    req.end(body);
  });
}

/** A multipart body with one CSV file of `rows` fresh addresses. */
function csvUpload(tag: string, rows: number): { body: Buffer; type: string } {
  const boundary = `soak${tag}`;
  const csv = Array.from({ length: rows }, (_, i) => `s${tag}-${i}@soak${i % 50}.example`).join('\n');
  const body = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\n${csv}\r\n--${boundary}--\r\n`);
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

type Kind = 'read' | 'list-read' | 'write' | 'blacklist-import' | 'optout-import';
/** The mix: mostly reads, some writes, a few imports (5%); `bare`: the opt-out imports' share read instead. */
function pick(n: number, bare: boolean): Kind {
  const r = n % 100;
  if (r < 55) return 'read';
  if (r < 75) return 'list-read';
  if (r < 90) return 'write';
  if (r < 95) return 'blacklist-import';
  return bare ? 'list-read' : 'optout-import';
}

interface SoakRun {
  times: Map<Kind, number[]>;
  /** Times of the opt-out imports answered 200 (admitted and done). */
  imported: number[];
  statuses: Map<number, number>;
  unexpected: Map<Kind, number>;
  seconds: number;
}

const json = (o: unknown) => Buffer.from(JSON.stringify(o));

function createList(url: string): Promise<number> {
  return new Promise<number>((ok, fail) => {
    const req = request(`${url}/optout/lists`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => ok((JSON.parse(text) as { id: number }).id));
    });
    req.on('error', fail);
    req.end(JSON.stringify({ projectId: 'p1' }));
  });
}

let seq = 0;
/** One request of `kind`; its status (0: no answer). */
function issue(kind: Kind, url: string, list: number): Promise<number> {
  const id = seq++;
  if (kind === 'read') return send(`${url}/cati/blacklist?$top=100&$orderby=Id%20desc`, 'GET');
  if (kind === 'list-read') return send(`${url}/optout/lists/${list}/emails?$pageSize=100`, 'GET');
  if (kind === 'write') return send(`${url}/cati/blacklist`, 'POST', json({ TelephoneNumber: `030${String(id).padStart(8, '0')}` }), 'application/json');
  if (kind === 'blacklist-import') {
    const items = Array.from({ length: 500 }, (_, i) => `040${String(id * 500 + i).padStart(9, '0')}`);
    return send(`${url}/cati/blacklist/Controller.Import`, 'POST', json({ BlackListItems: items }), 'application/json');
  }
  const { body, type } = csvUpload(String(id), 2000);
  return send(`${url}/optout/lists/${list}/emails/import`, 'POST', body, type);
}

/** One soak on a running server: CLIENTS clients for SECONDS (bounded). */
async function soak(url: string, list: number, bare: boolean): Promise<SoakRun> {
  const times = new Map<Kind, number[]>();
  const imported: number[] = [];
  const statuses = new Map<number, number>();
  const unexpected = new Map<Kind, number>();
  let issued = 0;
  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let n = client * 7; performance.now() < deadline && issued < MAX_REQUESTS; n++) {
        issued++;
        const kind = pick(n, bare);
        const t0 = performance.now();
        const status = await issue(kind, url, list);
        const ms = performance.now() - t0;
        (times.get(kind) ?? times.set(kind, []).get(kind)!).push(ms);
        if (kind === 'optout-import' && status === 200) imported.push(ms);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status >= 400 && status !== 429 && status !== 503 && !unexpected.has(kind)) unexpected.set(kind, status);
      }
    }),
  );
  return { times, imported, statuses, unexpected, seconds: (performance.now() - started) / 1000 };
}

/** Prints a run's lines per kind; returns its failures (other 5xx, no answer), its load shed (429/503) and all its times. */
function describeRun(name: string, run: SoakRun): { failures: number; shed: number; all: number[] } {
  const all = [...run.times.values()].flat();
  const shed = (run.statuses.get(429) ?? 0) + (run.statuses.get(503) ?? 0);
  const failures = [...run.statuses].filter(([s]) => s === 0 || (s >= 500 && s !== 503)).reduce((a, [, c]) => a + c, 0);
  console.log(`${name}: ${CLIENTS} clients, ${run.seconds.toFixed(1)} s, ${all.length} requests (${(all.length / run.seconds).toFixed(0)} req/s); statuses ${JSON.stringify(Object.fromEntries(run.statuses))}`);
  for (const [kind, ms] of run.times) console.log(`  ${kind.padEnd(16)} n=${String(ms.length).padStart(5)}  p50 ${quantile(ms, 0.5).toFixed(0)} ms  p99 ${quantile(ms, 0.99).toFixed(0)} ms  max ${Math.max(...ms).toFixed(0)} ms`);
  if (run.unexpected.size) console.log(`  unexpected statuses by kind: ${JSON.stringify(Object.fromEntries(run.unexpected))}`);
  return { failures, shed, all };
}

/** Starts a fresh server, runs `body` against it, and stops it (and its data) whatever happens. */
async function withServer<T>(body: (url: string, list: number) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cati-soak-'));
  const server = await startServer(dataDir);
  try {
    return await body(server.url, await createList(server.url));
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((ok) => {
      server.child.once('exit', ok);
      setTimeout(ok, 10_000).unref();
    });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const loadBefore = load();
let exitCode = 0;
try {
  const bare = await withServer((url, list) => soak(url, list, true));
  const { full, alone } = await withServer(async (url, list) => {
    const full = await soak(url, list, false);
    // An import's own time: one at a time on the now quiet server (its workers warm, as after any import).
    const alone: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      const status = await issue('optout-import', url, list);
      if (status !== 200) throw new Error(`a lone opt-out import answered ${status}`);
      alone.push(performance.now() - t0);
    }
    return { full, alone };
  });
  const b = describeRun('bare (no opt-out imports)', bare);
  const f = describeRun('full mix', full);
  const p99 = quantile(f.all, 0.99);
  report('soak p50', quantile(f.all, 0.5), 'ms', quantile(b.all, 0.5), '—', null);
  report('soak p99', p99, 'ms', quantile(b.all, 0.99), '< 1,000 ms on an idle machine', p99 < 1000);
  const importP99 = full.imported.length ? quantile(full.imported, 0.99) : NaN;
  report(`soak opt-out import p99 (${full.imported.length} admitted)`, importP99, 'ms', quantile(alone, 0.99), '< 1,000 ms on an idle machine (baseline: one at a time)', importP99 < 1000);
  console.log(`soak load shed (429/503 with Retry-After): ${f.shed}; failures (other 5xx, connection errors, no answer in ${REQUEST_TIMEOUT_MS / 1000} s): ${b.failures + f.failures}`);
  console.log(`load average (1, 5, 15 min) before ${loadBefore}, after ${load()}`);
  if (b.failures + f.failures > 0 || bare.unexpected.size || full.unexpected.size) exitCode = 1;
} finally {
  agent.destroy();
}
process.exit(exitCode);
