/**
 * Cold start (docs/performance.md#summary): from spawning the headless server on a data dir whose migrations are
 * applied to its "listening on" line, against a bare server that opens the same database and listens
 * (cold-start-bare.mjs). Measured, alternately, COLD_RUNS rounds (default 7), each figure the median of its
 * rounds' ratios:
 * - `npm run serve` as it runs (scripts/serve.mjs: the compiled server in dist/, built first when stale) against
 *   the bare server under `node --import tsx` — the goal, ≤ 2×;
 * - the same against the bare server under plain `node` (both without the TypeScript loader);
 * - the sources through tsx (`node --import tsx server/cli.ts serve`: what `npm run serve` runs after an edit
 *   until the next build) against the bare server under tsx.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { quantile, report } from './bench-tools.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const RUNS = Math.max(1, Math.min(50, Number(process.env.COLD_RUNS ?? 7)));

/** Milliseconds from spawning `node …args` to the first "listening on" line on stdout (the process is then stopped; bounded 60 s). */
function timeToListen(args: string[]): Promise<number> {
  return new Promise((ok, fail) => {
    const start = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CATI_SERVE_FROM: '' } });
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

/** scripts/build-main.mjs when dist/ is older than the sources, so `npm run serve` runs the compiled server. */
function buildIfStale(): void {
  const fresh = spawnSync(process.execPath, ['--input-type=module', '-e', "import { mainBuildIsFresh } from './scripts/main-build-state.mjs'; process.exit(mainBuildIsFresh() ? 0 : 1)"], { cwd: ROOT });
  if (fresh.status === 0) return;
  console.log('building dist/ (npm run build:main) first…');
  const build = spawnSync(process.execPath, ['scripts/build-main.mjs'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build:main failed');
}

const dataDir = mkdtempSync(join(os.tmpdir(), 'cati-cold-'));
try {
  buildIfStale();
  const runs = {
    serve: () => timeToListen(['scripts/serve.mjs', '--port', '0', '--data-dir', dataDir]),
    sources: () => timeToListen(['--import', 'tsx', 'server/cli.ts', 'serve', '--port', '0', '--data-dir', dataDir]),
    bareTsx: () => timeToListen(['--import', 'tsx', 'test/bench/cold-start-bare.mjs', dataDir]),
    bareNode: () => timeToListen(['test/bench/cold-start-bare.mjs', dataDir]),
  };
  const ms: Record<keyof typeof runs, number[]> = { serve: [], sources: [], bareTsx: [], bareNode: [] };
  await runs.serve(); // creates the database and applies the migrations
  for (const run of Object.values(runs)) await run(); // warms the disk cache and tsx's transform cache
  for (let i = 0; i < RUNS; i++) for (const [name, run] of Object.entries(runs)) ms[name as keyof typeof runs].push(await run());
  const median = (v: number[]) => quantile(v, 0.5);
  const ratio = (a: number[], b: number[]) => median(a.map((x, i) => x / b[i]!));
  console.log(`cold start, ${RUNS} rounds (machine load: ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores); medians:`);
  report('npm run serve (compiled, dist/) to "listening on"', median(ms.serve), 'ms', median(ms.bareTsx), '', null);
  const r = ratio(ms.serve, ms.bareTsx);
  report('cold start ratio, npm run serve / bare server under node --import tsx', r, '×', null, '≤ 2', r <= 2);
  report('cold start ratio, npm run serve / bare server under plain node', ratio(ms.serve, ms.bareNode), '×', null, '(for information)', null);
  report('from the sources (node --import tsx server/cli.ts serve) to "listening on"', median(ms.sources), 'ms', median(ms.bareTsx), '', null);
  report('cold start ratio, from the sources / bare server under node --import tsx', ratio(ms.sources, ms.bareTsx), '×', null, '(for information: after an edit, until the next build)', null);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
