import { stat } from 'node:fs/promises';
import { readHead } from '../lib/read-head.ts';
import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import type { Actor } from '../audit/audit-log.ts';
import type { AppContext } from '../context.ts';
import { DatabaseUnavailableError } from '../db/store.ts';
import { ApiError, badRequest, fromDatabaseError, notFound } from '../errors.ts';
import type { EntryKind } from './entries.ts';
import { detectFormat } from './file-format.ts';
import type { FileFormat } from './file-format.ts';
import { IMPORT_BATCH, type ImportOutcome, type ParsedMessage, type ParseJob, type WorkerReply, type WriteJob, type WriterStart } from './import-protocol.ts';
import { checkValues, ImportFileError, readTextFileValues, readTextValues } from './import-parse.ts';
import { writeEntriesThroughStore, type ParsedValues } from './import-store-write.ts';
import { siblingModule, startModuleWorker } from '../db/start-worker.ts';
import { registerImportWorkers, unregisterImportWorkers, WorkerPool } from './import-workers.ts';

/** Limits of one import (CONTRACT §5, §7). */
export interface ImportLimits {
  maxRows: number;
  /** Reading and validating must finish within this time, else the worker is terminated. */
  parseTimeoutMs: number;
  /** V8 old-generation ceiling of the parse worker (the write worker gets a fixed, smaller one). */
  heapMb: number;
  /**
   * How long the write may wait for the database (SQLite busy_timeout; twice that, the worker is stopped).
   * Through the Store (PostgreSQL): the write is rolled back when it takes longer than twice that.
   */
  writeTimeoutMs: number;
  /** Imports running at once; further ones wait in line (up to maxWaiting, then 429 with Retry-After). */
  maxConcurrent: number;
  maxWaiting: number;
  /** How long an import may wait in line for its turn; then 503 with Retry-After (never an answer that hangs). */
  maxWaitMs: number;
  /**
   * A text file up to this size is read, validated and written on the main thread in one Store transaction (some
   * 2,000 addresses: 10-20 ms of synchronous work, within CONTRACT §13's 50 ms), without the line: under a mixed
   * load its two worker hops, each waiting for a CPU, were most of a small import's time (issue 25: the soak's
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
const WRITE_ENTRY = siblingModule('import-worker', import.meta.url);
const WRITER_HEAP_MB = 128;

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
  if (err instanceof ApiError || err instanceof DatabaseUnavailableError) return err;
  console.error('opt-out import: the write failed and was rolled back:', err);
  return fromDatabaseError(err) ?? new ApiError('InternalError', 'The import failed; nothing was stored');
}

/**
 * Ends the write worker without Worker.terminate(): terminating a thread while better-sqlite3 turns a SQLite
 * error into an exception (SQLITE_FULL from its checkpoint on a full disk) aborts the whole process. It is told
 * to stop and leaves between two of its steps (import-worker.ts); only one still running `graceMs` later (stuck
 * outside SQLite) is terminated.
 */
function stopWriter(writer: Worker, graceMs: number): void {
  writer.postMessage('stop');
  const last = setTimeout(() => void writer.terminate(), graceMs);
  last.unref();
  writer.once('exit', () => clearTimeout(last));
}

/** How an import writes: SQLite's write worker (its own connection, the fast path) or one Store transaction. */
export type ImportWritePath = 'sqlite-worker' | 'store';

/** Adds `fn` as `event` listener of `w` and returns what removes it (a kept worker must not keep a job's listeners). */
function listen(w: Worker, event: 'message' | 'error' | 'exit', fn: (arg: never) => void): () => void {
  w.on(event, fn as (arg: unknown) => void);
  return () => void w.off(event, fn as (arg: unknown) => void);
}

/** Runs import jobs in kept worker threads (import-workers.ts), a few at a time. */
export class ImportService {
  private readonly gate: Gate;
  private readonly parsers: WorkerPool;
  private readonly writers: WorkerPool;
  private closed = false;
  /** `writePath`: by default the write worker where the store lets a worker write (SQLite), else the Store. */
  constructor(
    private readonly ctx: Pick<AppContext, 'store' | 'dbFile'>,
    readonly limits: ImportLimits = DEFAULT_IMPORT_LIMITS,
    readonly writePath: ImportWritePath = ctx.store.workerWriteFile !== null ? 'sqlite-worker' : 'store',
  ) {
    this.gate = new Gate(limits);
    this.parsers = new WorkerPool(
      () => startModuleWorker(PARSE_ENTRY, { resourceLimits: { maxOldGenerationSizeMb: limits.heapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 } }),
      (w) => void w.terminate(),
      limits.maxConcurrent,
    );
    this.writers = new WorkerPool(
      () =>
        startModuleWorker(WRITE_ENTRY, {
          workerData: { dbFile: ctx.dbFile } satisfies WriterStart,
          resourceLimits: { maxOldGenerationSizeMb: WRITER_HEAP_MB, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
        }),
      (w) => stopWriter(w, 2 * limits.writeTimeoutMs),
      limits.maxConcurrent,
    );
    registerImportWorkers(ctx.dbFile, this);
  }

  /**
   * Imports an uploaded file into a list: format by extension and content (400 on mismatch), then read,
   * validate in a worker and write (`writePath`). Failures: bad file → 400; the worker exceeding its memory or
   * time limit → 413 (the file is too large to process: a clear client-side cause, not a retryable server
   * state); the write audits the import as `actor` in its transaction; the list deleted meanwhile → 404;
   * busy database → the SQLite mapping, unreachable → 503; anything else → 500. Nothing is stored unless the
   * whole import is. An import that cannot start within `maxWaitMs` → 503, one beyond the line → 429 (both
   * with Retry-After).
   */
  async importFile(listId: number, kind: EntryKind, fileName: string, filePath: string, actor: Actor): Promise<ImportOutcome> {
    const { size } = await stat(filePath);
    const format = detectFormat(fileName, await readHead(filePath), size);
    if (format === 'text' && size <= this.limits.inlineBytes) {
      if (this.closed) throw new Error('The import service is closed (the server is stopping)');
      return this.importInline(() => readTextFileValues(filePath, this.limits.maxRows), kind, listId, actor);
    }
    await this.gate.enter();
    try {
      return await this.runWorkers(filePath, format, kind, listId, actor);
    } finally {
      this.gate.leave();
    }
  }

  /** True when a file of these bytes is imported inline (importBytes); else it goes through a file (importFile). */
  takesInline(fileName: string, bytes: Buffer): boolean {
    return bytes.length <= this.limits.inlineBytes && detectFormat(fileName, bytes, bytes.length) === 'text';
  }

  /** Imports a small text file the upload kept in memory (takesInline): the inline way, without touching the disk. */
  async importBytes(listId: number, kind: EntryKind, bytes: Buffer, actor: Actor): Promise<ImportOutcome> {
    if (this.closed) throw new Error('The import service is closed (the server is stopping)');
    return this.importInline(() => readTextValues(bytes, this.limits.maxRows), kind, listId, actor);
  }

  /** A small text file: read and validated here, written in one Store transaction with its audit row. */
  private async importInline(values: () => Iterable<string>, kind: EntryKind, listId: number, actor: Actor): Promise<ImportOutcome> {
    const batches: string[][] = [];
    let counts: ParsedValues['counts'];
    try {
      counts = checkValues(values(), kind, IMPORT_BATCH, (batch) => batches.push(batch));
    } catch (err) {
      if (err instanceof ImportFileError) throw failure({ type: 'failed', status: err.status, message: err.message }, listId);
      throw err;
    }
    try {
      return await writeEntriesThroughStore(this.ctx.store, listId, kind, { batches, counts }, actor, Date.now() + 2 * this.limits.writeTimeoutMs);
    } catch (err) {
      throw storeFailure(err, listId);
    }
  }

  /** Stops this service's workers (the server is closing; also called by closeImportWorkers). */
  async close(): Promise<void> {
    this.closed = true;
    unregisterImportWorkers(this.ctx.dbFile, this);
    await Promise.all([this.parsers.close(), this.writers.close()]);
  }

  /** Worker threads alive (idle or busy): parse and write workers, for tests. */
  get workerCount(): { parse: number; write: number } {
    return { parse: this.parsers.size, write: this.writers.size };
  }

  /**
   * Two workers joined by a MessageChannel: the parser (no database handle, memory and time limits) sends
   * valid values to the writer (a database connection, never the file). The read timer runs until the writer
   * has staged everything; the writer then writes within its busy timeout. On the Store path the main thread
   * takes the writer's place: it collects the values, then writes them in one transaction
   * (import-store-write.ts). Both workers come from the pools and go back after a clean import; after any
   * failure or timeout they end (as each import's own workers did before), and a parser that read a workbook
   * always ends.
   */
  private runWorkers(filePath: string, format: FileFormat, kind: EntryKind, listId: number, actor: Actor): Promise<ImportOutcome> {
    const limits = this.limits;
    return new Promise((resolve, reject) => {
      const { port1, port2 } = new MessageChannel();
      const writer = this.writePath === 'sqlite-worker' ? this.writers.take() : undefined;
      const parser = this.parsers.take();
      const offs: (() => void)[] = [];
      let parserFinished = false;
      let settled = false;
      let timer: NodeJS.Timeout;
      const settle = (ok: boolean, fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        for (const off of offs) off();
        if (ok && format === 'text') this.giveBackParser(parser, parserFinished);
        else this.parsers.end(parser);
        if (writer) {
          if (ok) this.writers.give(writer);
          else this.writers.end(writer);
        } else port2.close();
        fn();
      };
      const fail = (err: unknown) => settle(false, () => reject(err));
      const seconds = limits.parseTimeoutMs / 1000;
      timer = setTimeout(() => fail(new ApiError('PayloadTooLarge', `The file could not be read within ${seconds} s; split it into smaller files`)), limits.parseTimeoutMs);
      const onError = (heapMb: number) => (err: Error & { code?: string }) => {
        if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') fail(new ApiError('PayloadTooLarge', `Reading the file needs more than ${heapMb} MB of memory; split it into smaller files`));
        else fail(err);
      };
      offs.push(
        listen(parser, 'message', (m: WorkerReply) => {
          if (m.type === 'failed') fail(failure(m, listId));
          else if (m.type === 'finished') parserFinished = true;
        }),
        listen(parser, 'error', onError(limits.heapMb)),
        listen(parser, 'exit', (code: number) => fail(new Error(`The import's parse worker exited (code ${code}) without a result`))),
      );
      if (!writer) {
        collectParsed(port2, (parsed) => {
          if (settled) return; // stopped by the read timer: nothing is written
          clearTimeout(timer);
          writeEntriesThroughStore(this.ctx.store, listId, kind, parsed, actor, Date.now() + 2 * limits.writeTimeoutMs).then(
            (result) => settle(true, () => resolve(result)),
            (err: unknown) => fail(storeFailure(err, listId)),
          );
        });
      } else {
        offs.push(
          listen(writer, 'message', (m: WorkerReply) => {
            if (m.type === 'parsed') {
              // The writer writes only once told to, so a worker stopped by the read timer can never have written.
              if (settled) return;
              clearTimeout(timer);
              timer = setTimeout(() => fail(new ApiError('InternalError', 'Writing the import took too long; check the list before trying again')), 2 * limits.writeTimeoutMs);
              writer.postMessage('write');
            } else if (m.type === 'done') settle(true, () => resolve(m.result));
            else if (m.type === 'failed') fail(failure(m, listId));
          }),
          listen(writer, 'error', onError(WRITER_HEAP_MB)),
          listen(writer, 'exit', (code: number) => fail(new Error(`The import's write worker exited (code ${code}) without a result`))),
        );
        writer.postMessage({ listId, kind, busyTimeoutMs: limits.writeTimeoutMs, port: port2, actor } satisfies WriteJob, [port2]);
      }
      parser.postMessage({ filePath, format, kind, maxRows: limits.maxRows, port: port1 } satisfies ParseJob, [port1]);
    });
  }

  /** A parser goes back once it said `finished` (its last message may come after the writer's result). */
  private giveBackParser(parser: Worker, finished: boolean): void {
    if (finished) return this.parsers.give(parser);
    const offs: (() => void)[] = [];
    const done = (keep: boolean) => {
      for (const off of offs) off();
      if (keep) this.parsers.give(parser);
      else this.parsers.end(parser);
    };
    offs.push(
      listen(parser, 'message', (m: WorkerReply) => done(m.type === 'finished')),
      listen(parser, 'exit', () => done(false)),
    );
  }
}

/** Collects what the parser sends over `port` (values in batches, then its counts) and hands it to `done`. */
function collectParsed(port: MessagePort, done: (parsed: ParsedValues) => void): void {
  const batches: string[][] = [];
  port.on('message', (m: ParsedMessage) => {
    if ('values' in m) batches.push(m.values);
    else {
      port.close();
      done({ batches, counts: m.end });
    }
  });
}

