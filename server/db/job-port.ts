/**
 * The job's end of a job process (job-process.ts): its data (the last argument, JSON), and its messages to and
 * from the server, over Electron's `process.parentPort` in the desktop app's utility process, else over Node's IPC
 * channel. The job does not end itself: once it has said it is over, the server stops it (every message sent
 * before has arrived by then). A job whose server has gone ends with it.
 */

interface ParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (e: { data: unknown }) => void): void;
}

const electronPort = (process as { parentPort?: ParentPort }).parentPort;

/** The data the server started this job with. */
export function jobData<T>(): T {
  return JSON.parse(process.argv.at(-1)!) as T;
}

/** Sends a message to the server. */
export function toServer(message: unknown): void {
  if (electronPort) electronPort.postMessage(message);
  else process.send!(message);
}

/** Calls `listener` with each message from the server. */
export function fromServer(listener: (message: unknown) => void): void {
  if (electronPort) electronPort.on('message', (e) => listener(e.data));
  else process.on('message', listener);
}

// Node: the server gone (killed, crashed), the channel closes; nothing is left to do it for.
if (!electronPort) process.on('disconnect', () => process.exit(1));
