import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The directory of this run's compiled server (helpers/compiled-server.ts). */
    serverBuild: string;
  }
}

export const ROOT = join(import.meta.dirname, '..', '..');
/**
 * The node arguments of the CLI for the tests that spawn it: `server/cli.ts` compiled once per run to plain
 * JavaScript (test/global-setup.ts, helpers/compiled-server.ts), which starts several times faster than
 * `node --import tsx server/cli.ts` (what `npm run serve` runs: cli.test.ts spawns that too).
 */
export const CLI = [join(inject('serverBuild'), 'server', 'cli.js')];

/** A spawned `cli.ts serve` process. */
export interface ServeProcess {
  child: ChildProcessWithoutNullStreams;
  /** The first stdout line (`listening on URL`), or a rejection when the process exits first. */
  first: Promise<string>;
  nextLine(): Promise<string>;
  exitCode(): Promise<number | null>;
  /** Everything the server wrote so far, stdout and stderr. */
  output: { text: string };
}

/** Starts `cli.ts serve --port 0 --data-dir <dataDir>`; stdout lines are buffered so none is missed between awaits. */
export function serveProcess(dataDir: string, extra: string[] = [], env: Record<string, string> = {}): ServeProcess {
  const child = spawn(process.execPath, [...CLI, 'serve', '--port', '0', '--data-dir', dataDir, ...extra], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
  const buffered: string[] = [];
  /** Everything the server wrote, stdout and stderr. */
  const output = { text: '' };
  child.stdout.on('data', (d) => (output.text += d));
  child.stderr.on('data', (d) => (output.text += d));
  const waiting: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const w = waiting.shift();
    if (w) w(line);
    else buffered.push(line);
  });
  let exited: ((reason: Error) => void) | undefined;
  const exit = new Promise<never>((_, reject) => (exited = reject));
  exit.catch(() => {});
  child.once('exit', (code) => exited?.(new Error(`serve exited ${code}`)));
  const nextLine = () =>
    Promise.race([buffered.length ? Promise.resolve(buffered.shift()!) : new Promise<string>((r) => waiting.push(r)), exit]);
  const exitCode = () =>
    new Promise<number | null>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));
  return { child, first: nextLine(), nextLine, exitCode, output };
}

/** Starts a server and answers its URL. */
export async function serveUrl(dataDir: string, env: Record<string, string> = {}): Promise<{ proc: ServeProcess; url: string }> {
  const proc = serveProcess(dataDir, [], env);
  const line = await proc.first;
  return { proc, url: line.slice('listening on '.length) };
}
