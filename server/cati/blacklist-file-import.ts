/**
 * Blacklist file imports (docs/cati-api.md#blacklist-imports): `POST /cati/blacklist/imports` takes a
 * .csv/.tsv/.txt/.xlsx file of up to 1,000,000 rows. A parse worker (blacklist-file-worker.ts) reads and
 * normalises it; a bad file is the request's 400/413 and stores nothing. Once its rows are counted the
 * request answers 202 and the job runs on: every valid row is stored in one transaction with one audit row
 * (storeItems, as Controller.Import writes), the added entries published on /events. A job's state is in the
 * database (`jobs`, scrub/job-table.ts), so every server answers for it; jobs are kept 24 hours.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { Actor } from '../audit/audit-log.ts';
import type { Principal } from '../auth/api-keys.ts';
import type { AppContext } from '../context.ts';
import { siblingModule, startModuleWorker } from '../db/start-worker.ts';
import { ApiError, badRequest, notFound } from '../errors.ts';
import { MessageQueue } from '../lib/message-queue.ts';
import { finishJob, insertJob, jobServerId, JobPulse, readJob, sweepJobs } from '../scrub/job-table.ts';
import { scrubOwner } from '../scrub/scrub-job.ts';
import type { BlacklistFileJob, FromBlacklistWorker, InvalidRow } from './blacklist-file-protocol.ts';
import type { BlacklistType } from './blacklist-model.ts';
import { storeItems, type ValidItems } from './blacklist-service.ts';

const ENTRY = siblingModule('blacklist-file-worker', import.meta.url);
const RETENTION_MS = 24 * 3600_000;
const MAX_ROWS = 1_000_000;
const HEAP_MB = 384;

export interface BlacklistImportJob {
  id: string;
  owner: string;
  actor: Actor;
  fileName: string;
  encoding: string | null;
  state: 'running' | 'done' | 'failed';
  rows: number;
  processed: number;
  added: number;
  duplicates: number;
  invalid: number;
  error: string | null;
  invalidRows: InvalidRow[];
  createdAt: number;
}

/** `GET /cati/blacklist/imports('{Id}')`. */
export function importAnswer(job: Omit<BlacklistImportJob, 'actor'>): Record<string, unknown> {
  return {
    Id: job.id, State: job.state, FileName: job.fileName, Encoding: job.encoding, Rows: job.rows, Processed: job.processed,
    Added: job.added, Duplicates: job.duplicates, Invalid: job.invalid, Error: job.error, InvalidRows: job.invalidRows,
  };
}

/** What a request asks of an import. */
export interface ImportRequest {
  filePath: string;
  fileName: string;
  format: BlacklistFileJob['format'];
  sheet?: string | undefined;
  column?: string | undefined;
  header?: string | undefined;
  type?: string | undefined;
  region: string | null;
}

/** The `type` form field: Equal (default) or StartWith, else 400. */
function defaultType(value: string | undefined): BlacklistType {
  const v = value?.trim() ?? '';
  if (v === '' || v.toLowerCase() === 'equal') return 'Equal';
  if (v.toLowerCase() === 'startwith') return 'StartWith';
  throw badRequest(`type must be Equal or StartWith, not '${value}'`);
}

/** The worker's packed rows as the items to store: three arrays, not an object per row. */
function itemsOf(m: Extract<FromBlacklistWorker, { type: 'items' }>): ValidItems {
  return { numbers: JSON.parse(m.numbers) as string[], startWith: m.types, comments: JSON.parse(m.comments) as (string | null)[] };
}

/** The fields of an import the `jobs` table keeps in `data`. */
type ImportData = Omit<BlacklistImportJob, 'id' | 'owner' | 'actor' | 'state' | 'error' | 'createdAt'>;

function importData(job: BlacklistImportJob): ImportData {
  const { fileName, encoding, rows, processed, added, duplicates, invalid, invalidRows } = job;
  return { fileName, encoding, rows, processed, added, duplicates, invalid, invalidRows };
}

/** The blacklist file imports, as one server runs and answers them. */
export class BlacklistImports {
  private readonly serverId: string;

  constructor(private readonly ctx: AppContext) {
    this.serverId = jobServerId(ctx.config.dataDir);
    setInterval(() => void sweepJobs(ctx.store, ['blacklist'], Date.now() - RETENTION_MS).catch(() => undefined), 600_000).unref();
  }

  /** Starts an import; resolves with the job once its rows are counted, rejects with a bad file's 400/413 (the upload removed). */
  async start(principal: Principal, actor: Actor, req: ImportRequest): Promise<BlacklistImportJob> {
    let type: BlacklistType;
    try {
      type = defaultType(req.type);
    } catch (err) {
      await rm(req.filePath, { force: true });
      throw err;
    }
    const workerData: BlacklistFileJob = {
      filePath: req.filePath, format: req.format, sheet: req.sheet, column: req.column, header: req.header, type, region: req.region, maxRows: MAX_ROWS,
    };
    const worker = startModuleWorker(ENTRY, { workerData, resourceLimits: { maxOldGenerationSizeMb: HEAP_MB, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 } });
    worker.unref();
    const messages = new MessageQueue<FromBlacklistWorker>((m) => m.type === 'failed' || m.type === 'items');
    const push = (m: FromBlacklistWorker) => void messages.push(m);
    worker.on('message', push);
    worker.on('error', (err: Error & { code?: string }) =>
      push({ type: 'failed', status: 413, message: err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `Reading the file needs more than ${HEAP_MB} MB of memory; split it into smaller files` : `The file could not be read: ${err.message}` }),
    );
    worker.on('exit', () => push({ type: 'failed', status: 413, message: 'The file reader stopped before the end of the file' }));
    const next = () => messages.next();

    const first = await next();
    if (first.type !== 'accepted') {
      await worker.terminate();
      await rm(req.filePath, { force: true });
      if (first.type === 'failed') throw first.status === 413 ? new ApiError('PayloadTooLarge', first.message) : badRequest(first.message);
      throw new Error(`blacklist import worker: unexpected ${first.type}`);
    }
    const job: BlacklistImportJob = {
      id: randomUUID(), owner: scrubOwner(principal), actor, fileName: req.fileName, encoding: first.encoding, state: 'running', rows: first.rows,
      processed: 0, added: 0, duplicates: 0, invalid: 0, error: null, invalidRows: [], createdAt: Date.now(),
    };
    try {
      await insertJob(this.ctx.store, { id: job.id, kind: 'blacklist', owner: job.owner, serverId: this.serverId, data: importData(job), createdAt: job.createdAt });
    } catch (err) {
      await worker.terminate();
      await rm(req.filePath, { force: true });
      throw err;
    }
    // Deleted through any server (retention): the worker stops at the next heartbeat or progress write.
    const pulse = new JobPulse(this.ctx.store, job.id, () => void worker.terminate());
    void this.run(job, next, () => worker.terminate(), pulse).finally(() => {
      pulse.stop();
      void worker.terminate();
      void rm(req.filePath, { force: true });
    });
    return job;
  }

  /** Follows the worker to its items and stores them; `release` stops the worker once they are here (its heap is given back before the write). */
  private async run(job: BlacklistImportJob, next: () => Promise<FromBlacklistWorker>, release: () => Promise<unknown>, pulse: JobPulse): Promise<void> {
    try {
      for (;;) {
        const m = await next();
        if (m.type === 'progress') {
          job.processed = m.processed;
          pulse.progress(importData(job));
        }
        else if (m.type === 'failed') throw new Error(m.message);
        else if (m.type === 'items') {
          await release();
          const valid = itemsOf(m);
          m.numbers = m.comments = ''; // the texts parsed are garbage while the rows are written
          const stored = await storeItems(this.ctx.store, valid, m.invalid, Date.now(), { FileName: job.fileName, Rows: job.rows }, job.actor);
          Object.assign(job, { processed: job.rows, added: stored.Added, duplicates: stored.Duplicates, invalid: m.invalid, invalidRows: m.invalidRows, state: 'done' });
          break;
        }
      }
    } catch (err) {
      Object.assign(job, { state: 'failed', error: `The import failed and stored nothing: ${(err as Error).message}` });
    }
    pulse.stop();
    try {
      await finishJob(this.ctx.store, job.id, job.state === 'done' ? 'done' : 'failed', importData(job), job.error);
    } catch (err) {
      console.error(`blacklist import ${job.id}: its state could not be written:`, err);
    }
  }

  /** The job if this principal may see it (its owner, or company_administrate), else 404. */
  async find(id: string, principal: Principal): Promise<Omit<BlacklistImportJob, 'actor'>> {
    const row = await readJob<ImportData>(this.ctx.store, id, 'blacklist');
    if (!row || Date.now() - row.createdAt >= RETENTION_MS || !(principal.permissions.has('company_administrate') || row.owner === scrubOwner(principal))) {
      throw notFound(`No blacklist import with Id '${id}'`);
    }
    return { ...row.data, id: row.id, owner: row.owner, state: row.state, error: row.error, createdAt: row.createdAt };
  }
}

const services = new WeakMap<AppContext, BlacklistImports>();

/** The one blacklist import service of a server. */
export function blacklistImports(ctx: AppContext): BlacklistImports {
  let service = services.get(ctx);
  if (!service) services.set(ctx, (service = new BlacklistImports(ctx)));
  return service;
}
