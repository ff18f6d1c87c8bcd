/**
 * Opt-out import/export benchmark (`npm run bench -- optout`, or `node --import tsx test/bench/optout-bench.ts [rows]`).
 * Generates a 1,000,000-address CSV, starts a real server as a child process, uploads the file and measures
 * rows/s end to end and the server's peak RSS (VmHWM), then exports the list from a fresh server process and
 * measures the same. Goals (CONTRACT §5): import ≥200,000 rows/s with peak RSS <400 MB; export ≥500,000 rows/s
 * with peak RSS <200 MB. Prints figures; exits non-zero only when something does not work.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openAsBlob, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = resolve(import.meta.dirname, '..', '..');
const ROWS = Number(process.argv[2] ?? 1_000_000);
const KEY = 'bench-key-0123456789abcdef';
const START_TIMEOUT_MS = 30_000;
const REQUEST_TIMEOUT_MS = 300_000;

interface Server {
  child: ChildProcess;
  url: string;
}

/** Starts `cli.ts serve --port 0` and waits (bounded) for its `listening on` line. */
async function startServer(dataDir: string): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'server/cli.ts'), 'serve', '--port', '0', '--data-dir', dataDir], {
    cwd: ROOT,
    env: { ...process.env, CATI_API_KEY: KEY },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('server did not print "listening on" in time')), START_TIMEOUT_MS);
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

async function stopServer(s: Server): Promise<void> {
  const exited = new Promise((ok) => s.child.once('exit', ok));
  s.child.kill('SIGTERM');
  await Promise.race([exited, new Promise((ok) => setTimeout(ok, 10_000))]);
}

/** Peak resident set size of a process so far (VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function api(s: Server, method: string, path: string, body?: BodyInit, json?: unknown): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${KEY}` };
  if (json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(s.url + path, {
    method,
    headers,
    body: json !== undefined ? JSON.stringify(json) : body,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${await res.text()}`);
  return res;
}

function generateCsv(file: string, rows: number): void {
  const parts: string[] = ['EmailAddress'];
  for (let i = 0; i < rows; i++) parts.push(`first.last${i}@mail${i % 997}.example.com`);
  writeFileSync(file, `${parts.join('\r\n')}\r\n`);
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const verdict = (ok: boolean) => (ok ? 'meets goal' : 'BELOW GOAL');

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'optout-bench-'));
  const dataDir = join(dir, 'data');
  const csv = join(dir, 'addresses.csv');
  try {
    let t0 = performance.now();
    generateCsv(csv, ROWS);
    console.log(`generated ${fmt(ROWS)} addresses in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    // Phase 1: import, on a fresh server process.
    let server = await startServer(dataDir);
    const list = (await (await api(server, 'POST', '/optout/lists', undefined, { projectId: 'p1' })).json()) as { id: number };
    const form = new FormData();
    form.append('file', await openAsBlob(csv), 'addresses.csv');
    const baseRss = peakRssMb(server.child.pid!);
    t0 = performance.now();
    const result = (await (await api(server, 'POST', `/optout/lists/${list.id}/emails/import`, form)).json()) as { newRows: number };
    const importSeconds = (performance.now() - t0) / 1000;
    const importRss = peakRssMb(server.child.pid!);
    if (result.newRows !== ROWS) throw new Error(`import stored ${result.newRows} rows, expected ${ROWS}`);
    const importRate = ROWS / importSeconds;
    console.log(
      `import: ${fmt(ROWS)} rows in ${importSeconds.toFixed(2)} s = ${fmt(importRate)} rows/s (${verdict(importRate >= 200_000)}: ≥200,000); ` +
        `server peak RSS ${importRss.toFixed(0)} MB (after start ${baseRss.toFixed(0)} MB) (${verdict(importRss < 400)}: <400 MB)`,
    );
    await stopServer(server);

    // Phase 2: export, on a fresh server process so VmHWM measures the export alone.
    server = await startServer(dataDir);
    t0 = performance.now();
    const res = await api(server, 'GET', `/optout/lists/${list.id}/emails/export`);
    let lines = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      for (let i = buf.indexOf(0x0a); i !== -1; i = buf.indexOf(0x0a, i + 1)) lines++;
    }
    const exportSeconds = (performance.now() - t0) / 1000;
    const exportRss = peakRssMb(server.child.pid!);
    if (lines - 1 !== ROWS) throw new Error(`export gave ${lines - 1} rows, expected ${ROWS}`);
    const exportRate = ROWS / exportSeconds;
    console.log(
      `export: ${fmt(ROWS)} rows in ${exportSeconds.toFixed(2)} s = ${fmt(exportRate)} rows/s (${verdict(exportRate >= 500_000)}: ≥500,000); ` +
        `server peak RSS ${exportRss.toFixed(0)} MB (${verdict(exportRss < 200)}: <200 MB)`,
    );
    await stopServer(server);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
