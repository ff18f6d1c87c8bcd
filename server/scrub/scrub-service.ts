/**
 * The scrub jobs of this server process (docs/cati-api.md#scrubs). Jobs live in memory and their files on this
 * server's disk (`<data-dir>/scrubs`), so a job is known only to the server that ran it: behind a load
 * balancer over several PostgreSQL servers a client must come back to the same server (sticky sessions),
 * others answer 404. Jobs and files go after the retention time (24 h), on DELETE, and at every start
 * (server.ts empties `<data-dir>/scrubs`; the service itself is made with the first scrub request).
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { recordAudit, type Actor } from '../audit/audit-log.ts';
import type { Principal } from '../auth/api-keys.ts';
import type { AppContext } from '../context.ts';
import { notFound } from '../errors.ts';
import { makeJobDir, removeJobDir } from './scrub-files.ts';
import { scrubOwner, type ScrubJob } from './scrub-job.ts';
import type { ScrubFormat, ScrubKind } from './scrub-protocol.ts';
import { acceptScrub, type ScrubRequest } from './scrub-runner.ts';

export const DEFAULT_SCRUB_RETENTION_MS = 24 * 3600_000;
/** Jobs listed per owner (the newest). */
const LIST_LIMIT = 50;

/** The scrub jobs of one server. */
export class ScrubService {
  private readonly jobs = new Map<string, ScrubJob>();
  readonly retentionMs: number;
  readonly maxRows = 1_000_000;
  readonly heapMb = 384;

  constructor(private readonly ctx: AppContext) {
    this.retentionMs = ctx.config.scrubRetentionMs ?? DEFAULT_SCRUB_RETENTION_MS;
    const every = Math.max(1000, Math.min(this.retentionMs / 4, 600_000));
    setInterval(() => void this.sweep(), every).unref();
  }

  /**
   * Starts a job on an uploaded file; resolves with it once accepted (202), rejects with a bad file's
   * 400/413 — the upload and anything made for the job are then removed.
   */
  async start(
    kind: ScrubKind,
    principal: Principal,
    actor: Actor,
    fileName: string,
    format: () => Promise<ScrubFormat>,
    request: Omit<ScrubRequest, 'finished' | 'maxRows' | 'heapMb' | 'format'>,
    listIds: number[] = [],
  ): Promise<ScrubJob> {
    let checked: ScrubFormat;
    try {
      checked = await format();
    } catch (err) {
      await rm(request.filePath, { force: true });
      throw err;
    }
    const id = randomUUID();
    const job: ScrubJob = {
      id, kind, owner: scrubOwner(principal), actor, fileName, encoding: null, state: 'running', rows: null, processed: 0, kept: 0, removed: 0, invalid: 0, duplicates: 0,
      added: { kept: 0, removed: 0 },
      error: null, createdAt: Date.now(), finishedAt: null, dir: makeJobDir(this.ctx.config.dataDir, id), uploadPath: request.filePath, listIds,
    };
    const finished = async (j: ScrubJob) => {
      await rm(request.filePath, { force: true });
      await this.audit(j);
    };
    try {
      await acceptScrub(job, { ...request, format: checked, maxRows: this.maxRows, heapMb: this.heapMb, finished });
    } catch (err) {
      await removeJobDir(job.dir);
      await rm(request.filePath, { force: true });
      throw err;
    }
    this.jobs.set(id, job);
    return job;
  }

  /** The job if this principal may see it (its owner, or company_administrate), else 404. */
  find(id: string, kind: ScrubKind, principal: Principal): ScrubJob {
    const job = this.jobs.get(id);
    if (!job || job.kind !== kind || this.expired(job) || !this.mayRead(job, principal)) throw notFound(`No scrub with Id '${id}'`);
    return job;
  }

  /** The principal's jobs of one kind, newest first (company_administrate: everyone's). */
  list(kind: ScrubKind, principal: Principal): ScrubJob[] {
    return [...this.jobs.values()]
      .filter((j) => j.kind === kind && !this.expired(j) && this.mayRead(j, principal))
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, LIST_LIMIT);
  }

  /** Stops the job if it runs and removes it and its files. */
  async remove(job: ScrubJob): Promise<void> {
    this.jobs.delete(job.id);
    await job.cancel?.();
    await removeJobDir(job.dir);
    await rm(job.uploadPath, { force: true });
  }

  /** Removes every job older than the retention time. */
  async sweep(): Promise<void> {
    for (const job of [...this.jobs.values()]) if (this.expired(job)) await this.remove(job);
  }

  private expired(job: ScrubJob): boolean {
    return Date.now() - job.createdAt >= this.retentionMs;
  }

  private mayRead(job: ScrubJob, principal: Principal): boolean {
    return principal.permissions.has('company_administrate') || job.owner === scrubOwner(principal);
  }

  /** One audit row per scrub (entity `scrubs`) with its counts, written as the one who started it. */
  private async audit(job: ScrubJob): Promise<void> {
    const changes = {
      Kind: job.kind === 'phone' ? 'cati' : 'optout', FileName: job.fileName, State: job.state, Rows: job.rows, Kept: job.kept,
      Removed: job.removed, Invalid: job.invalid, Duplicates: job.duplicates, ...(job.error ? { Error: job.error } : {}), ...(job.kind === 'email' ? { Lists: job.listIds } : {}),
    };
    try {
      await this.ctx.store.transaction((tx) => recordAudit(tx, { action: 'scrubbed', entity: 'scrubs', entityId: job.id, changes }, Date.now(), job.actor));
    } catch (err) {
      console.error(`scrub ${job.id}: the audit row could not be written:`, err);
    }
  }
}

const services = new WeakMap<AppContext, ScrubService>();

/** The one scrub service of a server (shared by the CATI and the opt-out routes). */
export function scrubService(ctx: AppContext): ScrubService {
  let service = services.get(ctx);
  if (!service) services.set(ctx, (service = new ScrubService(ctx)));
  return service;
}
