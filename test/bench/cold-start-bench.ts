/**
 * Cold start (issue 26): from spawning `node --import tsx server/cli.ts serve` on a data dir whose migrations are
 * applied, to its "listening on" line, against a bare server run the same way that opens the same database and
 * listens (cold-start-bare.ts). Alternates the two, COLD_RUNS pairs (default 7), and reports the medians and the
 * median of the pairwise ratios. Goal: ≤ 2× the bare server.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { quantile, report } from './bench-tools.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const RUNS = Math.max(1, Math.min(50, Number(process.env.COLD_RUNS ?? 7)));

/** Milliseconds from spawn to the first "listening on" line on stdout (the process is then stopped; bounded 60 s). */
function timeToListen(args: string[]): Promise<number> {
  return new Promise((ok, fail) => {
    const start = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); fail(new Error(`no "listening on" within 60 s: ${err}`)); }, 60_000);
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (!out.includes('listening on')) return;
      const ms = performance.now() - start;
      clearTimeout(timer);
      child.once('exit', () => ok(ms));
      child.kill('SIGTERM');
    });
    child.once('error', fail);
  });
}

const dataDir = mkdtempSync(join(os.tmpdir(), 'cati-cold-'));
try {
  const ours = () => timeToListen(['server/cli.ts', 'serve', '--port', '0', '--data-dir', dataDir]);
  const bare = () => timeToListen(['test/bench/cold-start-bare.ts', dataDir]);
  await ours(); // creates the database and applies the migrations; warms the TypeScript loader's cache
  await bare();
  const a: number[] = [];
  const b: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const x = await ours();
    const y = await bare();
    a.push(x);
    b.push(y);
    ratios.push(x / y);
  }
  const median = (v: number[]) => quantile(v, 0.5);
  console.log(`cold start, ${RUNS} pairs (machine load: ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores)`);
  report('cold start, serve to "listening on" (median)', median(a), 'ms', median(b), '', null);
  const r = median(ratios);
  report('cold start ratio (median of pairs, ours / bare)', r, '×', null, '≤ 2', r <= 2);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
