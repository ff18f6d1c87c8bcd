/**
 * The opt-out import's worker pool (server/optout/import-workers.ts, docs/deployment.md#reliability): kept workers
 * are reused, dropped when they die or idle too long, never kept beyond `max`, and all stopped on close.
 */
import type { Store } from '../../server/db/store.ts';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { closeImportWorkers, registerImportWorkers, WorkerPool } from '../../server/optout/import-workers.ts';

const started: Worker[] = [];
const start = () => {
  const w = new Worker("require('node:worker_threads').parentPort.on('message', (m) => { if (m === 'die') process.exit(3); })", { eval: true });
  started.push(w);
  return w;
};
const exited = (w: Worker) => new Promise<number>((resolve) => w.once('exit', resolve));
afterEach(async () => {
  await Promise.all(started.splice(0).map((w) => w.terminate()));
});

describe('WorkerPool', () => {
  it('hands a given-back worker to the next taker and starts one only when none is idle', () => {
    const pool = new WorkerPool(start, (w) => void w.terminate(), 2);
    const a = pool.take();
    pool.give(a);
    expect(pool.take()).toBe(a);
    const b = pool.take();
    expect(b).not.toBe(a);
    expect(started).toHaveLength(2);
    expect(pool.size).toBe(2);
  });

  it('keeps at most `max` idle; the others are stopped', async () => {
    const pool = new WorkerPool(start, (w) => void w.terminate(), 1);
    const a = pool.take();
    const b = pool.take();
    pool.give(a);
    const gone = exited(b);
    pool.give(b);
    await gone;
    expect(pool.size).toBe(1);
    expect(pool.take()).toBe(a);
  });

  it('an idle worker that dies is dropped: the next taker gets a fresh one', async () => {
    const pool = new WorkerPool(start, (w) => void w.terminate(), 2);
    const a = pool.take();
    pool.give(a);
    const gone = exited(a);
    a.postMessage('die');
    expect(await gone).toBe(3);
    expect(pool.size).toBe(0);
    const b = pool.take();
    expect(b).not.toBe(a);
  });

  it('stops a worker idle for longer than its idle time', async () => {
    const pool = new WorkerPool(start, (w) => void w.terminate(), 2, 50);
    const a = pool.take();
    const gone = exited(a);
    pool.give(a);
    await gone;
    expect(pool.size).toBe(0);
  });

  it('a worker ended after a failure is never handed out again', async () => {
    const pool = new WorkerPool(start, (w) => void w.terminate(), 2);
    const a = pool.take();
    const gone = exited(a);
    pool.end(a);
    await gone;
    pool.give(a); // a late give-back of an ended worker keeps nothing
    expect(pool.take()).not.toBe(a);
  });

  it('closeImportWorkers stops idle and busy workers and waits for them; nothing is handed out after', async () => {
    const pool = new WorkerPool(start, (w) => void w.terminate(), 2);
    const idle = pool.take();
    pool.take();
    pool.give(idle);
    const store = {} as Store; // the registry's key: the server's store
    registerImportWorkers(store, pool);
    await closeImportWorkers(store);
    expect(pool.size).toBe(0);
    expect(started.every((w) => w.threadId === -1)).toBe(true);
    expect(() => pool.take()).toThrow(/closed/);
  });

  it('a process that closes its pools with nothing else to do waits for the idle (unref\'d) workers to exit', () => {
    // Before: the idle worker's exit did not keep the event loop alive, so the script ended with its top-level
    // await unsettled (exit code 13) and whatever followed the close never ran.
    const pool = join(import.meta.dirname, '..', '..', 'server', 'optout', 'import-workers.ts');
    const script = `
      import { Worker } from 'node:worker_threads';
      const { WorkerPool } = await import(${JSON.stringify(pool)});
      const code = "require('node:worker_threads').parentPort.on('message', (m) => { if (m === 'stop') setTimeout(() => process.exit(0), 50); })";
      // Stopped as the write worker is: asked to end itself (it rolls back first), not terminated.
      const p = new WorkerPool(() => new Worker(code, { eval: true }), (w) => w.postMessage('stop'), 1);
      p.give(p.take());
      await p.close();
      console.log('closed', p.size);`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('closed 0');
  });
});
