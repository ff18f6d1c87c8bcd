import { stat } from 'node:fs/promises';
import { readHead } from '../lib/read-head.ts';
import { MessageChannel, type Worker } from 'node:worker_threads';
import type { Actor } from '../audit/audit-log.ts';
import type { AppContext } from '../context.ts';
import type { BulkInsert } from '../db/bulk-insert.ts';
import { DatabaseUnavailableError } from '../db/store.ts';
import { ApiError, badRequest, fromDatabaseError, notFound } from '../errors.ts';
import type { EntryKind } from './entries.ts';
import { FileError } from '../files/file-error.ts';
import { detectFormat, type FileFormat } from '../files/file-format.ts';
import { IMPORT_BATCH, type FileCounts, type ImportJob, type ImportOutcome, type ImportWorkerStart, type ParseJob, type WorkerReply } from './import-protocol.ts';
import { checkValues, readTextFileValues, readTextValues, type FileValues } from './import-parse.ts';
import { commitImport, entryTarget } from './import-commit.ts';
import { siblingModule, startModuleWorker } from '../db/start-worker.ts';
import { registerImportWorkers, unregisterImportWorkers, WorkerPool } from './import-workers.ts';

/** Limits of one import (CONTRACT §5, §7). */
export interface ImportLimits {
  maxRows: number;
  /** Reading and validating must finish within this time, else the worker is terminated. */
  parseTimeoutMs: number;
  /** V8 old-generation ceiling of the import worker and of a workbook parser. */
  heapMb: number;
  /** How long the write may wait for the database's write lock; it is rolled back when it takes longer than twice that. */
  writeTimeoutMs: number;
  /** Imports running at once; further ones wait in line (up to maxWaiting, then 429 with Retry-After). */
  maxConcurrent: number;
  maxWaiting: number;
  /** How long an import may wait in line for its turn; then 503 with Retry-After (never an answer that hangs). */
  maxWaitMs: number;
  /**
   * A text file up to this size is read, validated and written on the main thread in one Store transaction (some
   * 2,000 addresses: 10-20 ms of synchronous work, within CONTRACT §13's 50 ms), without the line: under a mixed
   * load its worker hops, each waiting for a CPU, were most of a small import's time (issue 25: the soak's
   * p99). Larger files and every workbook go to the workers. 0: every import goes to the workers.
   */
  inlineBytes: number;
}

export const DEFAULT_IMPORT_LIMITS: ImportLimits = {
  maxRows: 1_000_000,
  parseTimeoutMs: 60_000,
  heapMb: 384,
  writeTimeoutMs: 30_000,
  maxConcurrent: 2,
  maxWaiting: 8,
  maxWaitMs: 5_000,
  inlineBytes: 64 * 1024,
};

const PARSE_ENTRY = siblingModule('import-parse-worker', import.meta.url);
const IMPORT_ENTRY = siblingModule('import-worker', import.meta.url);
/**
 * Young generation of the import workers (MB). Their garbage is short-lived batches of strings. Measured on the 1M
 * import (issue 26): 4 or 16 MB changed neither its speed nor its peak by more than a few MB, now that one
 * thread reads and stages a batch at a time; the small one keeps a worker's floor low.
 */
const YOUNG_GENERATION_MB = 4;

/** Retry-After (s) of an import refused for load: about the time a few imports take. */
const RETRY_IMPORT_AFTER = '10';

/** A counting semaphore with a bounded queue and a bounded wait (issue 25: imports under load). */
class Gate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limits: ImportLimits) {}

  async enter(): Promise<void> {
    if (this.running < this.limits.maxConcurrent) {
      this.running++;
      return;
    }
    if (this.waiting.length >= this.limits.maxWaiting) {
      throw new ApiError('TooManyRequests', 'Too many imports are waiting; try again shortly', undefined, { 'Retry-After': RETRY_IMPORT_AFTER });
    }
    await new Promise<void>((resolve, reject) => {
      const admit = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(admit), 1);
        const seconds = Math.round(this.limits.maxWaitMs / 100) / 10;
        reject(new ApiError('ServiceUnavailable', `The server is busy with other imports and could not start this one within ${seconds} s; nothing was stored, try again shortly`, undefined, { 'Retry-After': RETRY_IMPORT_AFTER }));
      }, this.limits.maxWaitMs);
      this.waiting.push(admit);
    });
  }

  leave(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}

/** Maps a worker's failure message to the client's error. */
function failure(reply: Extract<WorkerReply, { type: 'failed' }>, listId: number): ApiError {
  if (reply.status === 413) return new ApiError('PayloadTooLarge', reply.message);
  if (reply.status === 400) return badRequest(reply.message);
  if (reply.code === 'LIST_GONE' || reply.code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return notFound(`Opt-out list ${listId} no longer exists`);
  return fromDatabaseError({ code: reply.code }) ?? new ApiError('InternalError', 'The import failed; nothing was stored');
}

/** Maps a failure of the Store's write to the client's error (a lost connection stays a 503; anything unexpected is logged, a 500). */
function storeFailure(err: unknown, listId: number): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  // SQLite's and PostgreSQL's (23503) foreign-key violation: the list was deleted meanwhile.
  if (code === 'LIST_GONE' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503') return notFound(`Opt-out list ${listId} no longer exists`);
  if (code === 'BULK_DEADLINE') return new ApiError('InternalError', 'Writing the import took too long; nothing was stored');
  if (err instanceof ApiError || err instanceof DatabaseUnavailableError) return err;
  const known = fromDatabaseError(err);
  if (known) return known;
  console.error('opt-out import: the write failed and was rolled back:', err);
  return new ApiError('InternalError', 'The import failed; nothing was stored');
}

/** The stop flag each import worker was started with (import-worker.ts reads it between two batches). */
const stopFlags = new WeakMap<Worker, Int32Array>();

/**
 * Ends an import worker without Worker.terminate() while it may be inside SQLite (terminating a thread while
 * better-sqlite3 turns a SQLite error into an exception, SQLITE_FULL from a checkpoint on a full disk, aborts
 * the whole process): its stop flag is raised (a parse in progress stops at its next batch) and it is told to
 * stop, which it does between two of its steps; only one still running `graceMs` later is terminated.
 */
function stopImporter(worker: Worker, graceMs: number): void {
  const flag = stopFlags.get(worker);
  if (flag) Atomics.store(flag, 0, 1);
  worker.postMessage('stop');
  const last = setTimeout(() => void worker.terminate(), graceMs);
  last.unref();
  worker.once('exit', () => clearTimeout(last));
}

/** Adds `fn` as `event` listener of `w` and returns what removes it (a kept worker must not keep a job's listeners). */
function listen(w: Worker, event: 'message' | 'error' | 'exit', fn: (arg: never) => void): () => void {
  w.on(event, fn as (arg: unknown) => void);
  return () => void w.off(event, fn as (arg: unknown) => void);
}

/** Runs import jobs in kept worker threads (import-workers.ts), a few at a time. */
export class ImportService {
  private readonly gate: Gate;
  /** Import workers: each reads a text file (or receives a workbook's values) and feeds the Store's bulk insert. */
  private readonly importers: WorkerPool;
  /** Workbook parsers (the xlsx library on untrusted files, no database handle): one per workbook, never kept. */
  private readonly parsers: WorkerPool;
  private closed = false;

  constructor(
    private readonly ctx: Pick<AppContext, 'store' | 'dbFile'>,
    readonly limits: ImportLimits = DEFAULT_IMPORT_LIMITS,
  ) {
    this.gate = new Gate(limits);
    const resourceLimits = { maxOldGenerationSizeMb: limits.heapMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB, stackSizeMb: 4 };
    this.importers = new WorkerPool(
      () => {
        const stop = new Int32Array(new SharedArrayBuffer(4));
        const worker = startModuleWorker(IMPORT_ENTRY, { workerData: { stop } satisfies ImportWorkerStart, resourceLimits });
        stopFlags.set(worker, stop);
        return worker;
      },
      (w) => stopImporter(w, 2 * limits.writeTimeoutMs),
      limits.maxConcurrent,
    );
    // A workbook parser builds the xlsx library's many small objects: it keeps the larger nursery it had.
    const parserLimits = { ...resourceLimits, maxYoungGenerationSizeMb: 32 };
    this.parsers = new WorkerPool(() => startModuleWorker(PARSE_ENTRY, { resourceLimits: parserLimits }), (w) => void w.terminate(), 0);
    registerImportWorkers(ctx.dbFile, this);
  }

  /**
   * Imports an uploaded file into a list: format by extension and content (400 on mismatch), then read,
   * validate and feed the values into the Store's bulk insert in a worker, and commit it. Failures: bad file →
   * 400; the worker exceeding its memory or time limit → 413 (the file is too large to process: a clear
   * client-side cause, not a retryable server state); the write audits the import as `actor` in its
   * transaction; the list deleted meanwhile → 404; busy database → 429, full disk → 507, unreachable → 503;
   * anything else → 500. Nothing is stored unless the whole import is. An import that cannot start within
   * `maxWaitMs` → 503, one beyond the line → 429 (both with Retry-After).
   */
  async importFile(listId: number, kind: EntryKind, fileName: string, filePath: string, actor: Actor, sheet?: string): Promise<ImportOutcome> {
    const { size } = await stat(filePath);
    const format = detectFormat(fileName, await readHead(filePath), size);
    if (format !== 'xlsx' && size <= this.limits.inlineBytes) {
      if (this.closed) throw new Error('The import service is closed (the server is stopping)');
      return this.importInline(() => readTextFileValues(filePath, this.limits.maxRows, format === 'tsv'), kind, listId, actor);
    }
    await this.gate.enter();
    try {
      return await this.runWorkers(filePath, format, kind, listId, actor, sheet);
    } finally {
      this.gate.leave();
    }
  }

  /** True when a file of these bytes is imported inline (importBytes); else it goes through a file (importFile). */
  takesInline(fileName: string, bytes: Buffer): boolean {
    return bytes.length <= this.limits.inlineBytes && detectFormat(fileName, bytes, bytes.length) !== 'xlsx';
  }

  /** Imports a small text file the upload kept in memory (takesInline): the inline way, without touching the disk. */
  async importBytes(listId: number, kind: EntryKind, fileName: string, bytes: Buffer, actor: Actor): Promise<ImportOutcome> {
    if (this.closed) throw new Error('The import service is closed (the server is stopping)');
    const tab = detectFormat(fileName, bytes, bytes.length) === 'tsv';
    return this.importInline(() => readTextValues(bytes, this.limits.maxRows, tab), kind, listId, actor);
  }

  /** A small text file: read and validated here, fed to the bulk insert from this thread and committed. */
  private async importInline(read: () => FileValues, kind: EntryKind, listId: number, actor: Actor): Promise<ImportOutcome> {
    const bulk = this.ctx.store.bulkInsert(entryTarget(kind), { busyTimeoutMs: this.limits.writeTimeoutMs });
    let counts: FileCounts;
    try {
      const { encoding, values } = read();
      counts = { ...checkValues(values, kind, IMPORT_BATCH, (batch) => bulk.add(batch)), encoding };
      bulk.end();
    } catch (err) {
      bulk.abort();
      if (err instanceof FileError) throw failure({ type: 'failed', status: err.status, message: err.message }, listId);
      throw err;
    }
    try {
      return await commitImport(bulk, listId, kind, counts, actor, Date.now() + 2 * this.limits.writeTimeoutMs);
    } catch (err) {
      throw storeFailure(err, listId);
    }
  }

  /** Stops this service's workers (the server is closing; also called by closeImportWorkers). */
  async close(): Promise<void> {
    this.closed = true;
    unregisterImportWorkers(this.ctx.dbFile, this);
    await Promise.all([this.importers.close(), this.parsers.close()]);
  }

  /** Worker threads alive (idle or busy): import workers and workbook parsers, for tests. */
  get workerCount(): { import: number; workbook: number } {
    return { import: this.importers.size, workbook: this.parsers.size };
  }

  /**
   * One import worker (a text file: it reads the file itself; a workbook: a parser with no database handle
   * reads it and sends the values over a MessageChannel) feeds the Store's bulk insert and reports its counts;
   * this thread then commits the bulk insert (the list check and the audit row in its transaction). The read
   * timer runs until the worker has fed everything; a worker stopped by it never reached the commit, so nothing
   * is written. The import worker goes back to its pool after a clean import and ends after any failure or
   * timeout; a workbook parser always ends.
   */
  private runWorkers(filePath: string, format: FileFormat, kind: EntryKind, listId: number, actor: Actor, sheet?: string): Promise<ImportOutcome> {
    const limits = this.limits;
    return new Promise((resolve, reject) => {
      const bulk: BulkInsert = this.ctx.store.bulkInsert(entryTarget(kind), { busyTimeoutMs: limits.writeTimeoutMs });
      const importer = this.importers.take();
      const parser = format === 'xlsx' ? this.parsers.take() : undefined;
      const offs: (() => void)[] = [];
      let settled = false;
      let timer: NodeJS.Timeout;
      const settle = (ok: boolean, fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        for (const off of offs) off();
        if (parser) this.parsers.end(parser);
        if (ok) this.importers.give(importer);
        else {
          bulk.abort();
          this.importers.end(importer);
        }
        fn();
      };
      const fail = (err: unknown) => settle(false, () => reject(err));
      const seconds = limits.parseTimeoutMs / 1000;
      timer = setTimeout(() => fail(new ApiError('PayloadTooLarge', `The file could not be read within ${seconds} s; split it into smaller files`)), limits.parseTimeoutMs);
      const onError = (err: Error & { code?: string }) => {
        if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') fail(new ApiError('PayloadTooLarge', `Reading the file needs more than ${limits.heapMb} MB of memory; split it into smaller files`));
        else fail(err);
      };
      offs.push(
        listen(importer, 'message', (m: WorkerReply) => {
          if (m.type === 'failed') return fail(failure(m, listId));
          if (m.type !== 'parsed' || settled) return; // stopped by the read timer: nothing is written
          clearTimeout(timer);
          const deadline = Date.now() + 2 * limits.writeTimeoutMs;
          timer = setTimeout(() => fail(new ApiError('InternalError', 'Writing the import took too long; check the list before trying again')), deadline - Date.now() + 1000);
          commitImport(bulk, listId, kind, m.counts, actor, deadline).then(
            (result) => settle(true, () => resolve(result)),
            (err: unknown) => fail(storeFailure(err, listId)),
          );
        }),
        listen(importer, 'error', onError),
        listen(importer, 'exit', (code: number) => fail(new Error(`The import worker exited (code ${code}) without a result`))),
      );
      const transfer = [bulk.link.port];
      let job: ImportJob = { source: { filePath, tab: format === 'tsv' }, kind, maxRows: limits.maxRows, link: bulk.link };
      if (parser) {
        const { port1, port2 } = new MessageChannel();
        job = { ...job, source: { port: port2 } };
        transfer.push(port2);
        offs.push(
          listen(parser, 'message', (m: WorkerReply) => {
            if (m.type === 'failed') fail(failure(m, listId));
          }),
          listen(parser, 'error', onError),
          listen(parser, 'exit', (code: number) => fail(new Error(`The import's workbook parser exited (code ${code}) without a result`))),
        );
        parser.postMessage({ filePath, format, kind, maxRows: limits.maxRows, sheet, port: port1 } satisfies ParseJob, [port1]);
      }
      importer.postMessage(job, transfer);
    });
  }
}
