/**
 * The opt-out import's warm worker threads (imports under load). Starting a worker thread, loading
 * its modules (and, where the code runs as TypeScript, tsx compiling them) took nearly all of a small
 * import's time and CPU; under a mixed load the imports' p99 was that start-up, repeated per import. So the
 * service keeps its import workers between imports (workbook parsers are never kept): started lazily, at most `max`
 * idle, unref'd while idle and stopped after IDLE_MS without an import, dropped when one dies (the next
 * import starts a fresh one), and stopped with the server (closeImportWorkers). The service decides which
 * worker may come back (a clean job) and which must end (failures, timeouts, workbooks).
 */
import type { Worker } from 'node:worker_threads';
import type { Store } from '../db/store.ts';

/** An idle worker is stopped after this long without an import (the next import starts a new one). */
export const IDLE_MS = 30_000;

/**
 * Workers of one role: `start` makes a new one, `stop` ends one (the import worker's graceful stop, the
 * workbook parser's terminate); at most `max` are kept idle, each for `idleMs`.
 */
export class WorkerPool {
  private readonly idle: Worker[] = [];
  private readonly live = new Set<Worker>();
  private readonly idleTimers = new Map<Worker, NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly start: () => Worker,
    private readonly stop: (w: Worker) => void,
    private readonly max: number,
    private readonly idleMs = IDLE_MS,
  ) {}

  /** An idle worker, or a new one (its start is queued: jobs posted before it is ready wait in its port). */
  take(): Worker {
    if (this.closed) throw new Error('The import workers are closed (the server is stopping)');
    const warm = this.idle.pop();
    if (warm) {
      clearTimeout(this.idleTimers.get(warm));
      this.idleTimers.delete(warm);
      warm.ref();
      return warm;
    }
    const fresh = this.start();
    this.live.add(fresh);
    // Always one listener: a worker that fails while idle must not throw on the main thread.
    fresh.on('error', () => this.forget(fresh));
    fresh.once('exit', () => this.forget(fresh));
    return fresh;
  }

  /** Takes back a worker whose job ended cleanly (stopped instead when closed, dead or beyond `max` idle). */
  give(w: Worker): void {
    if (this.closed || !this.live.has(w) || this.idle.length >= this.max) return this.end(w);
    w.unref();
    this.idle.push(w);
    this.idleTimers.set(
      w,
      setTimeout(() => this.end(w), this.idleMs).unref(),
    );
  }

  /** Ends a worker (after a failure, a timeout, or a job that must not leave the thread to another import). */
  end(w: Worker): void {
    this.forget(w);
    this.stop(w);
  }

  /** Ends every worker and waits until they have exited. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.live];
    const exits = all.map((w) => new Promise<void>((resolve) => (w.threadId < 0 ? resolve() : w.once('exit', () => resolve()))));
    // An idle worker is unref'd: ref'd again, its exit keeps the event loop alive until it comes. Otherwise a
    // process with nothing else left to do (a script that closed its server) ends with this wait unsettled (exit 13).
    for (const w of all) w.ref();
    for (const w of all) this.end(w);
    await Promise.all(exits);
  }

  /** Workers alive (idle or busy), for tests. */
  get size(): number {
    return this.live.size;
  }

  private forget(w: Worker): void {
    this.live.delete(w);
    clearTimeout(this.idleTimers.get(w));
    this.idleTimers.delete(w);
    const i = this.idle.indexOf(w);
    if (i >= 0) this.idle.splice(i, 1);
  }
}

const registry = new Map<Store, Set<{ close(): Promise<void> }>>();

/** Registers the pools of an import service on `store`, so the server's close reaches them. */
export function registerImportWorkers(store: Store, owner: { close(): Promise<void> }): void {
  (registry.get(store) ?? registry.set(store, new Set()).get(store)!).add(owner);
}

/** Forgets an owner registered with registerImportWorkers (it closed itself). */
export function unregisterImportWorkers(store: Store, owner: { close(): Promise<void> }): void {
  registry.get(store)?.delete(owner);
}

/** Stops the import workers of the services on `store` (the server is closing: no connection outlives it). */
export async function closeImportWorkers(store: Store): Promise<void> {
  const owners = [...(registry.get(store) ?? [])];
  registry.delete(store);
  await Promise.all(owners.map((o) => o.close()));
}
