/**
 * The messages of a worker or a job process, one at a time and in order, as promises, until the last one it will
 * send (its end or its failure): what comes after that is dropped. The channels of the scrub's job process and its
 * parse worker (scrub/job-channel.ts, scrub/worker-channel.ts) and the blacklist file import read theirs this way.
 */
export class MessageQueue<T> {
  private readonly queue: T[] = [];
  private waiting: ((m: T) => void) | undefined;
  private ended = false;

  /** `isLast`: whether a message is the last one (nothing after it is delivered). */
  constructor(private readonly isLast: (m: T) => boolean) {}

  /** False once the last message has come or the queue was closed. */
  get open(): boolean {
    return !this.ended;
  }

  /** Delivers a message; answers false (and drops it) once the queue is no longer open. */
  push(m: T): boolean {
    if (this.ended) return false;
    if (this.isLast(m)) this.ended = true;
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting(m);
    else this.queue.push(m);
    return true;
  }

  /** Takes no more messages (its sender was stopped). */
  close(): void {
    this.ended = true;
  }

  /** The next message, when it comes. */
  next(): Promise<T> {
    const m = this.queue.shift();
    if (m !== undefined) return Promise.resolve(m);
    return new Promise((resolve) => (this.waiting = resolve));
  }
}
