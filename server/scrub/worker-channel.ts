/**
 * The job process's end of a scrub's parse worker (scrub-job-process.ts): its messages in order, as promises, with
 * the worker's crash, memory ceiling or early exit turned into a `failed` message.
 */
import type { Worker } from 'node:worker_threads';
import { MessageQueue } from '../lib/message-queue.ts';
import type { FromWorker, ToWorker } from './scrub-protocol.ts';

/** Reads a worker's messages one at a time. */
export class WorkerChannel {
  private readonly messages = new MessageQueue<FromWorker>((m) => m.type === 'failed' || m.type === 'end');

  constructor(
    private readonly worker: Worker,
    heapMb: number,
  ) {
    const push = (m: FromWorker) => void this.messages.push(m);
    worker.on('message', push);
    worker.on('error', (err: Error & { code?: string }) => {
      const memory = err.code === 'ERR_WORKER_OUT_OF_MEMORY';
      push({
        type: 'failed',
        status: 413,
        message: memory ? `Reading the file needs more than ${heapMb} MB of memory; split it into smaller files` : `The file could not be read: ${err.message}`,
      });
    });
    worker.on('exit', () => push({ type: 'failed', status: 413, message: 'The file reader stopped before the end of the file' }));
  }

  /** False once the worker has ended, failed or been stopped: it takes no more messages. */
  get open(): boolean {
    return this.messages.open;
  }

  /** The next message (a failure once the worker is gone). */
  next(): Promise<FromWorker> {
    return this.messages.next();
  }

  /** Sends a message (`transfer`: buffers moved, not copied); throws once the worker has ended or failed. */
  send(m: ToWorker, transfer: ArrayBuffer[] = []): void {
    if (!this.messages.open) throw new Error('The file reader has stopped');
    this.worker.postMessage(m, transfer);
  }

  /** Stops the worker (nothing more is delivered); resolves once it has stopped writing. */
  async stop(): Promise<void> {
    this.messages.close();
    await this.worker.terminate();
  }
}
