/**
 * Runs a module of this code base as a job in a process of its own (a scrub, scrub/scrub-job-process.ts): when it ends, the
 * operating system takes back all its memory, which a worker thread's native allocations never fully give back to
 * the server's process (docs/performance.md#memory-after-a-job). Under Node the process is `child_process.fork`;
 * the desktop app, whose Electron cannot fork itself as Node, hands the server a launcher on `utilityProcess`
 * (`jobLauncher` in its config, main/job-processes.ts). The job's side of the conversation is job-port.ts.
 */
import { fork } from 'node:child_process';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unpackedPath } from './native-binding.ts';

/** What the server hears from a job process. */
export interface JobProcessEvents {
  message(m: unknown): void;
  /** It ended; `stderr`: the end of what it wrote there (a V8 out-of-memory report, an uncaught error). */
  exit(code: number | null, stderr: string): void;
}

/** The server's end of a running job process. */
export interface JobProcess {
  send(message: unknown): void;
  /** Ends it; resolves once it has exited. */
  stop(): Promise<void>;
}

/** Starts `file` (a JavaScript module) with `args` and Node's `execArgv` (in `cwd` when given). */
export type ProcessLauncher = (file: string, options: { args: string[]; execArgv: string[]; cwd?: string }, on: JobProcessEvents) => JobProcess;

/** The last STDERR_KEEP characters a job wrote to stderr, for the reason it ended. */
const STDERR_KEEP = 4000;
/** The project's root (this file is server/db/job-process.ts). */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `child_process.fork`: Node's own job processes (the headless server, tests, `npm run serve`). */
export const forkLauncher: ProcessLauncher = (file, { args, execArgv, cwd }, on) => {
  const child = fork(file, args, { execArgv, cwd, serialization: 'advanced', stdio: ['ignore', 'inherit', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => {
    stderr = (stderr + text).slice(-STDERR_KEEP);
    process.stderr.write(text);
  });
  const exited = new Promise<void>((resolve) => {
    child.on('exit', (code) => {
      on.exit(code, stderr);
      resolve();
    });
  });
  child.on('message', (m) => on.message(m));
  child.on('error', () => undefined); // a failed send; the exit says the rest
  // A job never keeps a stopping server alive (its files go at the next start).
  child.unref();
  child.channel?.unref();
  return {
    send: (m) => void child.send(m as Parameters<typeof child.send>[0]),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill();
      await exited;
    },
  };
};

/**
 * Starts the job module `entry` with `data` (JSON, its last argument) and an old generation of at most `heapMb` MB
 * (its young one is V8's default: a flag for it would hold for the job's worker threads too, over their own
 * resourceLimits, and a smaller one cost the scrub's parse worker a third more CPU), through
 * `launcher` (default: Node's fork). A `.ts` entry runs from its compiled twin under CATI_WORKER_BUILD
 * (start-worker.ts), else through tsx.
 */
export function startModuleProcess(entry: URL, data: unknown, heapMb: number, launcher: ProcessLauncher = forkLauncher, on: JobProcessEvents): JobProcess {
  // --expose-gc: a job may collect its garbage at a point it knows is right (scrub-job-process.ts, after the list).
  const execArgv = [`--max-old-space-size=${heapMb}`, '--expose-gc'];
  const args = [JSON.stringify(data)];
  const file = fileURLToPath(entry);
  if (!file.endsWith('.ts')) return launcher(unpackedPath(file), { args, execArgv }, on);
  const build = process.env.CATI_WORKER_BUILD;
  if (build) return launcher(join(build, relative(ROOT, file)).replace(/\.ts$/, '.js'), { args, execArgv }, on);
  // `--import tsx` resolves from the working directory: the project's, where tsx is installed.
  return launcher(file, { args, execArgv: [...execArgv, '--import', 'tsx'], cwd: ROOT }, on);
}
