/**
 * The server's end of a scrub's job process (scrub-job-process.ts, started through db/job-process.ts): its messages
 * in order, as promises, with its crash, memory ceiling or early exit turned into a failure.
 */
import { startModuleProcess, type JobProcess, type ProcessLauncher } from '../db/job-process.ts';
import { MessageQueue } from '../lib/message-queue.ts';
import type { FromJob, ScrubJobData, ToJob } from './scrub-protocol.ts';

/**
 * The job process's own heap (MB): it passes the list on to its worker a chunk at a time, relays messages and copies
 * the result files a chunk at a time; the parse worker has its own limits (scrub-job-process.ts).
 */
const JOB_HEAP_MB = 128;

/** Reads a job process's messages one at a time. */
export class JobChannel {
  private readonly messages = new MessageQueue<FromJob>((m) => m.type === 'failed' || m.type === 'end' || m.type === 'error');
  private readonly job: JobProcess;

  constructor(entry: URL, data: ScrubJobData, launcher?: ProcessLauncher) {
    this.job = startModuleProcess(entry, data, JOB_HEAP_MB, launcher, {
      message: (m) => this.push(m as FromJob),
      exit: (_code, stderr) => {
        // V8 reports a heap over its limit on stderr ("JavaScript heap out of memory", "Fatal JavaScript OOM …"), then aborts.
        const memory = /heap out of memory|javascript OOM/i.test(stderr);
        this.push({ type: 'error', message: memory ? `the job ran out of memory (${JOB_HEAP_MB} MB)` : 'the job stopped before its end' });
      },
    });
  }

  private push(m: FromJob): void {
    if (this.messages.push(m) && !this.messages.open) void this.job.stop(); // it has said all it will say
  }

  /** The next message (an error once the process is gone). */
  next(): Promise<FromJob> {
    return this.messages.next();
  }

  /** Sends a message; throws once the job has ended or failed. */
  send(m: ToJob): void {
    if (!this.messages.open) throw new Error('The scrub job has stopped');
    this.job.send(m);
  }

  /** Stops the job (nothing more is delivered); resolves once it has exited, its files closed. */
  async stop(): Promise<void> {
    this.messages.close();
    await this.job.stop();
  }
}
