/**
 * Shared pieces of the benchmarks: servers in worker threads (bench-worker.ts), a keep-alive HTTP client,
 * bounded latency sampling and throughput runs, and the one-line report of a figure against its baseline.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';
import type { BenchWorkerData } from './bench-worker.ts';

/** A server running in a worker thread. */
export interface BenchServer {
  url: string;
  /** Resets the worker's event-loop-delay histogram. */
  eldReset(): Promise<void>;
  /** The worst event-loop delay (ms) since the last reset. */
  eldMax(): Promise<number>;
  close(): Promise<void>;
}

const WORKER = new URL('./bench-worker.ts', import.meta.url).href;

/** Starts bench-worker.ts in a worker thread (tsx registered there too) and waits for its URL (bounded). */
export function startWorker(data: BenchWorkerData): Promise<BenchServer> {
  const boot = `import { register } from '${import.meta.resolve('tsx/esm/api')}'; register(); await import(${JSON.stringify(WORKER)});`;
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), { workerData: data });
  const ask = <T>(op: string, pick: (m: any) => T) =>
    new Promise<T>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`worker did not answer ${op}`)), 30_000);
      const on = (m: { op: string }) => {
        if (m.op !== op && !(op === 'close' && m.op === 'closed')) return;
        worker.off('message', on);
        clearTimeout(timer);
        ok(pick(m));
      };
      worker.on('message', on);
      worker.postMessage({ op });
    });
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('worker did not start in 60 s')), 60_000);
    worker.once('error', fail);
    worker.on('message', (m: { op: string; url?: string }) => {
      if (m.op !== 'ready') return;
      clearTimeout(timer);
      ok({
        url: m.url!,
        eldReset: () => ask('eld-reset', () => undefined),
        eldMax: () => ask('eld-max', (x) => x.ms as number),
        close: async () => {
          await ask('close', () => undefined);
          await worker.terminate();
        },
      });
    });
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** One request over a keep-alive connection; resolves with status and body (throws after 120 s). */
export function call(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: Buffer }> {
  return new Promise((ok, fail) => {
    const req = request(url, { agent, method: init.method ?? 'GET', headers: init.headers, timeout: 120_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => ok({ status: res.statusCode!, body: Buffer.concat(chunks) }));
      res.on('error', fail);
    });
    req.on('timeout', () => req.destroy(new Error(`timeout: ${url}`)));
    req.on('error', fail);
    req.end(init.body);
  });
}

/** Times `runs` sequential calls (stopping after `maxMs`), checking each status; returns the times in ms. */
export async function sample(url: string, runs: number, maxMs = 30_000, headers?: Record<string, string>): Promise<number[]> {
  const ms: number[] = [];
  const deadline = Date.now() + maxMs;
  for (let i = 0; i < runs && Date.now() < deadline; i++) {
    const t = performance.now();
    const r = await call(url, { headers });
    if (r.status !== 200) throw new Error(`${url}: ${r.status} ${r.body.toString().slice(0, 300)}`);
    ms.push(performance.now() - t);
  }
  return ms;
}

/** Requests per second with `concurrency` connections for `seconds` (each connection sequential). */
export async function throughput(url: string, seconds: number, concurrency: number, headers?: Record<string, string>): Promise<number> {
  let done = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const r = await call(url, { headers });
        if (r.status !== 200) throw new Error(`${url}: ${r.status} ${r.body.toString().slice(0, 300)}`);
        done++;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

/** The q-quantile of a sample (nearest rank). */
export function quantile(ms: number[], q: number): number {
  const s = [...ms].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

/** Prints one figure with its baseline, their ratio and the goal. */
export function report(label: string, value: number, unit: string, baseline: number | null, goal: string, met: boolean | null): void {
  const f = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(2));
  const base = baseline === null ? '' : ` | baseline ${f(baseline)} ${unit} | ratio ${(value / baseline).toFixed(2)}`;
  const verdict = met === null ? '' : met ? ' (meets goal)' : ' (BELOW GOAL)';
  console.log(`${label}: ${f(value)} ${unit}${base} | goal ${goal}${verdict}`);
}

/** A server process started by startProcess. */
export interface ServerProcess {
  child: ChildProcess;
  url: string;
}

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * Starts `node ARGS` in the project (CATI_API_KEY=`key`) and waits, at most `timeoutMs`, for its
 * `listening on URL` line.
 */
export async function startProcess(args: string[], key: string, timeoutMs = 60_000): Promise<ServerProcess> {
  // BENCH_CPU_PROF=DIR: the server writes a V8 CPU profile there when it exits (to find where a figure's time goes).
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...profile, ...args], { cwd: ROOT, env: { ...process.env, CATI_API_KEY: key }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`server did not print "listening on" within ${timeoutMs / 1000} s`)), timeoutMs);
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

/** What `watchLoop` saw: the longest wall-clock gap between ticks, and the longest time the thread ran within one. */
export interface LoopWatch {
  /** The worst event-loop delay as a clock sees it (includes time the OS did not run the thread). */
  wallMs: number;
  /** The most CPU the thread used within one gap: its longest synchronous work (null where the OS cannot tell). */
  cpuMs: number | null;
  /** The gaps over 60 ms, with how they split into running, waiting for a CPU and sleeping. */
  stalls: string[];
}

const threadSchedstat = (): [number, number] | null => {
  try {
    const [run, wait] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number);
    return [run! / 1e6, wait! / 1e6];
  } catch {
    return null;
  }
};

/**
 * Watches this thread's event loop every 10 ms until `stop()`. A stall on a busy 2-core machine is mostly the
 * OS running other threads (the parse worker, PostgreSQL, other processes); Linux's per-thread schedstat tells
 * that apart from the work this thread did in the gap, which is what the documented budget limits.
 */
export function watchLoop(describe: () => string = () => ''): { stop: () => LoopWatch } {
  const started = performance.now();
  let last = started;
  let lastSched = threadSchedstat();
  const watch: LoopWatch = { wallMs: 0, cpuMs: lastSched ? 0 : null, stalls: [] };
  const timer = setInterval(() => {
    const now = performance.now();
    const sched = lastSched && threadSchedstat();
    const gap = now - last;
    const ran = sched && lastSched ? sched[0] - lastSched[0] : null;
    watch.wallMs = Math.max(watch.wallMs, gap);
    if (ran !== null) watch.cpuMs = Math.max(watch.cpuMs ?? 0, ran);
    if (gap > 60 && watch.stalls.length < 10) {
      const split = ran === null ? '' : ` [ran ${ran.toFixed(0)} ms, waited for a CPU ${(sched![1] - lastSched![1]).toFixed(0)} ms]`;
      watch.stalls.push(`${Math.round(gap)} ms at ${Math.round(now - started)} ms${describe()}${split}`);
    }
    last = now;
    lastSched = sched;
  }, 10);
  return {
    stop: () => {
      clearInterval(timer);
      return watch;
    },
  };
}
