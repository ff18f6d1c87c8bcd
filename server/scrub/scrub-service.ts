/**
 * The scrub jobs (docs/cati-api.md#scrubs). A job's state is in the database (`jobs`, job-table.ts) and its result
 * files too, once it is done (`job_files`, job-files.ts), so every server on the database answers for it: its
 * progress, its downloads and DELETE. The server running it keeps its worker, its upload and a copy of its files on
 * its own disk (`<data-dir>/scrubs`, sent from there when asked of this server). Jobs and files go after the
 * retention time (24 h, swept by any server), on DELETE (through any server: the running one stops its worker at its
 * next write), and at every start (server.ts empties `<data-dir>/scrubs` and fails the jobs it was running).
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { recordAudit, type Actor } from '../audit/audit-log.ts';
import type { Principal } from '../auth/api-keys.ts';
import type { AppContext } from '../context.ts';
import { conflict, notFound } from '../errors.ts';
import { jobFileChunks, jobFileRows } from './job-files.ts';
import { deleteJob, failJob, finishJob, insertJob, jobExists, jobServerId, JobPulse, listJobs, readJob, sweepJobs, type JobRow } from './job-table.ts';
import { makeJobDir, removeJobDir, resultPath, resultRows, scrubsDir, type ResultName } from './scrub-files.ts';
import { scrubData, scrubOwner, type ScrubData, type ScrubJob, type ScrubView } from './scrub-job.ts';
import type { ScrubFormat, ScrubKind } from './scrub-protocol.ts';
import { acceptScrub, type ScrubRequest } from './scrub-runner.ts';

export const DEFAULT_SCRUB_RETENTION_MS = 24 * 3600_000;
/** Jobs listed per owner (the newest). */
const LIST_LIMIT = 50;

const viewOf = (row: JobRow<ScrubData>): ScrubView => ({
  ...row.data, id: row.id, kind: row.kind as ScrubKind, owner: row.owner, state: row.state, error: row.error, createdAt: row.createdAt, finishedAt: row.finishedAt,
});

/** The scrub jobs, as one server runs and answers them. */
export class ScrubService {
  /** The jobs this server runs or ran (their worker, upload and local files). */
  private readonly jobs = new Map<string, ScrubJob>();
  readonly retentionMs: number;
  readonly maxRows = 1_000_000;
  readonly heapMb = 384;
  private readonly serverId: string;

  constructor(private readonly ctx: AppContext) {
    this.retentionMs = ctx.config.scrubRetentionMs ?? DEFAULT_SCRUB_RETENTION_MS;
    this.serverId = jobServerId(ctx.config.dataDir);
    const every = Math.max(1000, Math.min(this.retentionMs / 4, 600_000));
    setInterval(() => void this.sweep().catch(() => undefined), every).unref();
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
    request: Omit<ScrubRequest, 'finished' | 'progress' | 'maxRows' | 'heapMb' | 'format' | 'database' | 'launcher'>,
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
      added: { kept: 0, removed: 0 }, files: null,
      error: null, createdAt: Date.now(), finishedAt: null, dir: makeJobDir(this.ctx.config.dataDir, id), uploadPath: request.filePath, listIds,
    };
    const store = this.ctx.store;
    const pulse = new JobPulse(store, id, () => void this.stopLocal(job));
    const finished = async (j: ScrubJob) => {
      pulse.stop();
      await rm(request.filePath, { force: true });
      await this.finish(j);
    };
    try {
      await insertJob(store, { id, kind, owner: job.owner, serverId: this.serverId, data: scrubData(job), createdAt: job.createdAt });
      await acceptScrub(job, {
        ...request, format: checked, maxRows: this.maxRows, heapMb: this.heapMb, database: store.connectionUrl(), launcher: this.ctx.config.jobLauncher,
        finished, progress: (j) => pulse.progress(scrubData(j)),
      });
    } catch (err) {
      pulse.stop();
      await deleteJob(store, id).catch(() => undefined);
      await removeJobDir(job.dir);
      await rm(request.filePath, { force: true });
      throw err;
    }
    this.jobs.set(id, job);
    pulse.progress(scrubData(job));
    return job;
  }

  /**
   * Saves a finished job's state for every server (its result files are in the database already: its process stored
   * them), after its audit row; a job deleted meanwhile leaves nothing.
   */
  private async finish(job: ScrubJob): Promise<void> {
    const store = this.ctx.store;
    await this.audit(job);
    try {
      if (!(await finishJob(store, job.id, job.state === 'done' ? 'done' : 'failed', scrubData(job), job.error, job.finishedAt ?? Date.now()))) {
        if (!(await jobExists(store, job.id))) await deleteJob(store, job.id); // deleted while its files were stored
        await this.stopLocal(job);
      }
    } catch (err) {
      console.error(`scrub ${job.id}: its state could not be written:`, err);
    }
  }

  /** The job if this principal may see it (its owner, or company_administrate), else 404. */
  async find(id: string, kind: ScrubKind, principal: Principal): Promise<ScrubView> {
    const row = await readJob<ScrubData>(this.ctx.store, id, kind);
    if (!row || this.expired(row) || !this.mayRead(row, principal)) throw notFound(`No scrub with Id '${id}'`);
    return viewOf(row);
  }

  /** The principal's jobs of one kind, newest first (company_administrate: everyone's). */
  async list(kind: ScrubKind, principal: Principal): Promise<ScrubView[]> {
    const owner = principal.permissions.has('company_administrate') ? null : scrubOwner(principal);
    return (await listJobs<ScrubData>(this.ctx.store, kind, owner, Date.now() - this.retentionMs, LIST_LIMIT)).map(viewOf);
  }

  /**
   * The rows of a done job's result file: from this server's disk when it ran it, else from the database. A file
   * missing from both fails the job with the reason (409).
   */
  async resultRows(job: ScrubView, name: ResultName): Promise<AsyncIterable<string[]>> {
    const local = resultPath(join(scrubsDir(this.ctx.config.dataDir), job.id), name);
    if (this.jobs.has(job.id) && existsSync(local)) return resultRows(local);
    const expected = job.files?.[name];
    if (expected !== undefined && expected > 0 && (await jobFileChunks(this.ctx.store, job.id, name)) === expected) return jobFileRows(this.ctx.store, job.id, name, expected);
    const error = `The scrub failed: its result file '${name}' is missing`;
    await failJob(this.ctx.store, job.id, error);
    throw conflict(`The scrub failed and has no files: ${error}`);
  }

  /** Removes the job and its files for every server; stops it if it runs here (elsewhere its server stops it). */
  async remove(job: ScrubView): Promise<void> {
    await deleteJob(this.ctx.store, job.id);
    const local = this.jobs.get(job.id);
    if (local) await this.stopLocal(local);
  }

  /**
   * Stops a job of this server and removes what it has on this disk; once its process is gone, the chunks of its
   * files it stored after the job was deleted (a DELETE while it copied them) go as well.
   */
  private async stopLocal(job: ScrubJob): Promise<void> {
    this.jobs.delete(job.id);
    if (job.cancel) {
      await job.cancel();
      if (!(await jobExists(this.ctx.store, job.id))) await deleteJob(this.ctx.store, job.id);
    }
    await removeJobDir(job.dir);
    await rm(job.uploadPath, { force: true });
  }

  /** Removes every job older than the retention time (of every server), and this server's files of jobs gone. */
  async sweep(): Promise<void> {
    await sweepJobs(this.ctx.store, ['phone', 'email'], Date.now() - this.retentionMs);
    for (const job of [...this.jobs.values()]) if (!(await jobExists(this.ctx.store, job.id))) await this.stopLocal(job);
  }

  private expired(job: { createdAt: number }): boolean {
    return Date.now() - job.createdAt >= this.retentionMs;
  }

  private mayRead(job: { owner: string }, principal: Principal): boolean {
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
