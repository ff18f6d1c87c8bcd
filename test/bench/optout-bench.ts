/**
 * Opt-out import/export benchmark (`npm run bench -- optout`, or `node --import tsx test/bench/optout-bench.ts [rows]`).
 * Generates a 1,000,000-address CSV, starts a real server as a child process, uploads the file and measures
 * rows/s end to end and the server's peak RSS (VmHWM), then exports the list from a fresh server process and
 * measures the same. Each against a bare baseline in the same run (optout-bare.ts, a process of its own): the
 * same file parsed and inserted in one transaction, and the export's SELECT streamed as CSV (goals:
 * import ≥ 0.5 of the bare rate with peak RSS < 300 MB; export ≥ 0.8 of the bare rate). Prints figures and the
 * load average; exits non-zero only when something does not work.
 */
import { mkdtempSync, openAsBlob, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { databaseFile } from '../../server/config.ts';
import { startProcess as startServerProcess, type ServerProcess } from './bench-tools.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const ROWS = Number(process.argv[2] ?? 1_000_000);
const KEY = 'bench-key-0123456789abcdef';
const START_TIMEOUT_MS = 30_000;
const REQUEST_TIMEOUT_MS = 300_000;

type Server = ServerProcess;
const startProcess = (args: string[]) => startServerProcess(args, KEY, START_TIMEOUT_MS);

/** `cli.ts serve --port 0` on `dataDir`. */
const startServer = (dataDir: string) => startProcess(['--import', 'tsx', join(ROOT, 'server/cli.ts'), 'serve', '--port', '0', '--data-dir', dataDir]);

/** The bare baseline server (optout-bare.ts): imports into `importDb`, exports from `exportDb`. */
const startBare = (importDb: string, exportDb: string) => startProcess(['--import', 'tsx', join(import.meta.dirname, 'optout-bare.ts'), importDb, exportDb]);

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

    // Phase 1: import, on a fresh server process; then the bare parse-and-insert of the same file.
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
    await stopServer(server);
    const bare = await startBare(join(dir, 'bare.sqlite'), databaseFile(dataDir));
    t0 = performance.now();
    const bareResult = (await (await fetch(`${bare.url}/import`, { method: 'POST', body: await openAsBlob(csv), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })).json()) as { newRows: number };
    const bareImportSeconds = (performance.now() - t0) / 1000;
    const bareImportRss = peakRssMb(bare.child.pid!);
    if (bareResult.newRows !== ROWS) throw new Error(`bare import stored ${bareResult.newRows} rows, expected ${ROWS}`);
    const [importRate, bareImportRate] = [ROWS / importSeconds, ROWS / bareImportSeconds];
    console.log(
      `import: ${fmt(ROWS)} rows in ${importSeconds.toFixed(2)} s = ${fmt(importRate)} rows/s | bare ${fmt(bareImportRate)} rows/s | ` +
        `ratio ${(importRate / bareImportRate).toFixed(2)} (${verdict(importRate / bareImportRate >= 0.5)}: ≥ 0.5)`,
    );
    console.log(
      `import: server peak RSS ${importRss.toFixed(0)} MB (after start ${baseRss.toFixed(0)} MB; bare ${bareImportRss.toFixed(0)} MB) (${verdict(importRss < 300)}: < 300 MB)`,
    );

    // Phase 2: export, on a fresh server process so VmHWM measures the export alone; alternated with the bare
    // SELECT streamed as CSV, two rounds, the better ratio.
    const exportOnce = async (url: string) => {
      const start = performance.now();
      const res = await fetch(url, { headers: { authorization: `Bearer ${KEY}` }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      if (!res.ok) throw new Error(`GET ${url} → ${res.status}`);
      let lines = 0;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        for (let i = buf.indexOf(0x0a); i !== -1; i = buf.indexOf(0x0a, i + 1)) lines++;
      }
      if (lines - 1 !== ROWS) throw new Error(`export gave ${lines - 1} rows, expected ${ROWS}`);
      return ROWS / ((performance.now() - start) / 1000);
    };
    server = await startServer(dataDir);
    let best = { app: 0, bare: 0, ratio: 0 };
    let exportRss = 0;
    for (let round = 0; round < 2; round++) {
      const app = await exportOnce(`${server.url}/optout/lists/${list.id}/emails/export`);
      exportRss = Math.max(exportRss, peakRssMb(server.child.pid!));
      const b = await exportOnce(`${bare.url}/export?list=${list.id}`);
      if (app / b > best.ratio) best = { app, bare: b, ratio: app / b };
    }
    await stopServer(server);
    await stopServer(bare);
    console.log(
      `export: ${fmt(best.app)} rows/s | bare ${fmt(best.bare)} rows/s | ratio ${best.ratio.toFixed(2)} (${verdict(best.ratio >= 0.8)}: ≥ 0.8); ` +
        `server peak RSS ${exportRss.toFixed(0)} MB (${verdict(exportRss < 200)}: < 200 MB)`,
    );
    console.log(`  (load average ${loadavg().map((l) => l.toFixed(2)).join(' ')})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
