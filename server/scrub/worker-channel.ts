/**
 * The job process's end of a scrub's parse worker (scrub-job-process.ts): its messages in order, as promises, with
 * the worker's crash, memory ceiling or early exit turned into a `failed` message.
 */
import type { Worker } from 'node:worker_threads';
import type { FromWorker, ToWorker } from './scrub-protocol.ts';

/** Reads a worker's messages one at a time. */
export class WorkerChannel {
  private readonly queue: FromWorker[] = [];
  private waiting: ((m: FromWorker) => void) | undefined;
  private ended = false;

  constructor(
    private readonly worker: Worker,
    heapMb: number,
  ) {
    worker.on('message', (m: FromWorker) => this.push(m));
    worker.on('error', (err: Error & { code?: string }) => {
      const memory = err.code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.push({
        type: 'failed',
        status: 413,
        message: memory ? `Reading the file needs more than ${heapMb} MB of memory; split it into smaller files` : `The file could not be read: ${err.message}`,
      });
    });
    worker.on('exit', () => this.push({ type: 'failed', status: 413, message: 'The file reader stopped before the end of the file' }));
  }

  private push(m: FromWorker): void {
    if (this.ended) return;
    if (m.type === 'failed' || m.type === 'end') this.ended = true;
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting(m);
    else this.queue.push(m);
  }

  /** False once the worker has ended, failed or been stopped: it takes no more messages. */
  get open(): boolean {
    return !this.ended;
  }

  /** The next message (a failure once the worker is gone). */
  next(): Promise<FromWorker> {
    const m = this.queue.shift();
    if (m) return Promise.resolve(m);
    return new Promise((resolve) => (this.waiting = resolve));
  }

  /** Sends a message (`transfer`: buffers moved, not copied); throws once the worker has ended or failed. */
  send(m: ToWorker, transfer: ArrayBuffer[] = []): void {
    if (this.ended) throw new Error('The file reader has stopped');
    this.worker.postMessage(m, transfer);
  }

  /** Stops the worker (nothing more is delivered); resolves once it has stopped writing. */
  async stop(): Promise<void> {
    this.ended = true;
    await this.worker.terminate();
  }
}
