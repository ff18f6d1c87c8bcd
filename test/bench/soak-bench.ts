/**
 * Mixed soak (`npm run bench -- soak`, or `node --import tsx test/bench/soak-bench.ts [clients] [seconds]`), issue 25:
 * 50 clients on loopback for 20 s (bounded: each request times out after 30 s, the run stops at the deadline or
 * after 20,000 requests) against a real server process: collection reads, opt-out list reads, single writes,
 * blacklist imports (JSON) and small opt-out imports (multipart, 2,000 rows). Reports p50/p99 overall and per
 * kind, requests per second, and the count of 429/503 (load shed: an import that cannot start soon is refused
 * with Retry-After) and of failures (other 5xx, connection errors, no answer). Goal: p99 < 1 s on an idle
 * machine, no failures. Exits non-zero only on failures.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { quantile, report } from './bench-tools.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CLIENTS = Number(process.argv[2] ?? 50);
const SECONDS = Number(process.argv[3] ?? 20);
const MAX_REQUESTS = 20_000;
const REQUEST_TIMEOUT_MS = 30_000;
const KEY = 'bench-key-0123456789abcdef';

async function startServer(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'server/cli.ts'), 'serve', '--port', '0', '--data-dir', dataDir], {
    cwd: ROOT,
    env: { ...process.env, CATI_API_KEY: KEY },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('server did not print "listening on" within 60 s')), 60_000);
    child.once('exit', (code) => fail(new Error(`server exited early (code ${code})`)));
    lines.on('line', (line) => {
      const m = /^listening on (http:\/\/\S+)$/.exec(line);
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      }
    });
  });
  return { child, url };
}

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
/** The mix: mostly reads, some writes, a few imports (5%). */
function pick(n: number): Kind {
  const r = n % 100;
  if (r < 55) return 'read';
  if (r < 75) return 'list-read';
  if (r < 90) return 'write';
  if (r < 95) return 'blacklist-import';
  return 'optout-import';
}

const dataDir = mkdtempSync(join(tmpdir(), 'cati-soak-'));
const server = await startServer(dataDir);
let exitCode = 0;
try {
  const json = (o: unknown) => Buffer.from(JSON.stringify(o));
  const list = await new Promise<number>((ok, fail) => {
    const req = request(`${server.url}/optout/lists`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => ok((JSON.parse(text) as { id: number }).id));
    });
    req.on('error', fail);
    req.end(JSON.stringify({ projectId: 'p1' }));
  });
  const times = new Map<Kind, number[]>();
  const statuses = new Map<number, number>();
  const unexpected = new Map<Kind, number>();
  let issued = 0;
  let seq = 0;
  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let n = client * 7; performance.now() < deadline && issued < MAX_REQUESTS; n++) {
        issued++;
        const kind = pick(n);
        const id = seq++;
        const t0 = performance.now();
        let status: number;
        if (kind === 'read') status = await send(`${server.url}/cati/blacklist?$top=100&$orderby=Id%20desc`, 'GET');
        else if (kind === 'list-read') status = await send(`${server.url}/optout/lists/${list}/emails?$pageSize=100`, 'GET');
        else if (kind === 'write') status = await send(`${server.url}/cati/blacklist`, 'POST', json({ TelephoneNumber: `030${String(id).padStart(8, '0')}` }), 'application/json');
        else if (kind === 'blacklist-import') {
          const items = Array.from({ length: 500 }, (_, i) => `040${String(id * 500 + i).padStart(9, '0')}`);
          status = await send(`${server.url}/cati/blacklist/Controller.Import`, 'POST', json({ BlackListItems: items }), 'application/json');
        } else {
          const { body, type } = csvUpload(String(id), 2000);
          status = await send(`${server.url}/optout/lists/${list}/emails/import`, 'POST', body, type);
        }
        const ms = performance.now() - t0;
        (times.get(kind) ?? times.set(kind, []).get(kind)!).push(ms);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status >= 400 && status !== 429 && status !== 503 && !unexpected.has(kind)) unexpected.set(kind, status);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const all = [...times.values()].flat();
  const shed = (statuses.get(429) ?? 0) + (statuses.get(503) ?? 0);
  const failures = [...statuses].filter(([s]) => s === 0 || (s >= 500 && s !== 503)).reduce((a, [, c]) => a + c, 0);
  console.log(`${CLIENTS} clients, ${seconds.toFixed(1)} s, ${all.length} requests (${(all.length / seconds).toFixed(0)} req/s); statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
  for (const [kind, ms] of times) console.log(`  ${kind.padEnd(16)} n=${String(ms.length).padStart(5)}  p50 ${quantile(ms, 0.5).toFixed(0)} ms  p99 ${quantile(ms, 0.99).toFixed(0)} ms  max ${Math.max(...ms).toFixed(0)} ms`);
  report('soak p50', quantile(all, 0.5), 'ms', null, '—', null);
  report('soak p99', quantile(all, 0.99), 'ms', null, '< 1,000 ms on an idle machine', quantile(all, 0.99) < 1000);
  console.log(`soak load shed (429/503 with Retry-After): ${shed}; failures (other 5xx, connection errors, no answer in ${REQUEST_TIMEOUT_MS / 1000} s): ${failures}`);
  if (unexpected.size) console.log(`unexpected statuses by kind: ${JSON.stringify(Object.fromEntries(unexpected))}`);
  if (failures > 0 || unexpected.size) exitCode = 1;
} finally {
  server.child.kill('SIGTERM');
  await new Promise((ok) => {
    server.child.once('exit', ok);
    setTimeout(ok, 10_000).unref();
  });
  agent.destroy();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);
