import { utilityProcess } from 'electron';
import type { ProcessLauncher } from '../server/db/job-process.ts';

/** The last characters of a job's stderr kept for the reason it ended (server/db/job-process.ts). */
const STDERR_KEEP = 4000;

/**
 * Jobs' own processes in the desktop app (server/db/job-process.ts): Electron's `utilityProcess`, as the app
 * cannot fork itself as Node (its `runAsNode` fuse is off, electron-builder.yml). The job reads its data from its
 * last argument and talks over `process.parentPort` (server/db/job-port.ts).
 */
export const utilityLauncher: ProcessLauncher = (file, { args, execArgv }, on) => {
  const child = utilityProcess.fork(file, args, { execArgv, stdio: 'pipe', serviceName: 'CATI Supervisor job' });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    stderr = (stderr + text).slice(-STDERR_KEEP);
    process.stderr.write(text);
  });
  child.stdout?.pipe(process.stdout);
  let ended = false;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code: number) => {
      ended = true;
      on.exit(code, stderr);
      resolve();
    });
  });
  child.on('message', (m: unknown) => on.message(m));
  return {
    send: (m) => child.postMessage(m),
    stop: async () => {
      if (!ended) child.kill();
      await exited;
    },
  };
};
