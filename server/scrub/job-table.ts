/**
 * Jobs any server answers (docs/cati-api.md#scrubs, docs/cati-api.md#blacklist-imports, docs/deployment.md#several-servers):
 * the state of scrubs and blacklist file imports lives in the `jobs` table, so every server on the database gives the
 * same answer. The server running a job writes its progress (at most every PROGRESS_MS) and a heartbeat
 * (`updated_at`, every HEARTBEAT_MS); a running job whose heartbeat is older than STALE_MS is failed by whichever
 * server reads it. DELETE removes the row through any server; the running server sees it gone at its next write
 * and stops its worker.
 */
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { Queryable, Store } from '../db/store.ts';

export type JobKind = 'phone' | 'email' | 'blacklist';
type JobState = 'running' | 'done' | 'failed';

/** One job as the table holds it; `data` is the kind's own fields (counts, file name, …). */
export interface JobRow<D = Record<string, unknown>> {
  id: string;
  kind: JobKind;
  owner: string;
  serverId: string;
  state: JobState;
  data: D;
  error: string | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

const PROGRESS_MS = 500;
const HEARTBEAT_MS = 5000;
const STALE_MS = 60_000;
/** The reason a job whose server stopped ends with. */
const SERVER_STOPPED = 'the server running it stopped';

/** This server's name in `jobs.server_id`: its machine and data directory (the same after a restart). */
export function jobServerId(dataDir: string): string {
  return `${hostname()}:${resolve(dataDir)}`;
}

interface RawRow {
  id: string;
  kind: JobKind;
  owner: string;
  server_id: string;
  state: JobState;
  data: string;
  error: string | null;
  created_at: number | string;
  updated_at: number | string;
  finished_at: number | string | null;
}

const COLUMNS = 'id, kind, owner, server_id, state, data, error, created_at, updated_at, finished_at';

function fromRaw<D>(r: RawRow): JobRow<D> {
  return {
    id: r.id, kind: r.kind, owner: r.owner, serverId: r.server_id, state: r.state, data: JSON.parse(r.data) as D, error: r.error,
    createdAt: Number(r.created_at), updatedAt: Number(r.updated_at), finishedAt: r.finished_at === null ? null : Number(r.finished_at),
  };
}

/** Records a new running job. */
export async function insertJob(db: Queryable, job: { id: string; kind: JobKind; owner: string; serverId: string; data: unknown; createdAt: number }): Promise<void> {
  await db.run(`INSERT INTO jobs (${COLUMNS}) VALUES (?, ?, ?, ?, 'running', ?, NULL, ?, ?, NULL)`, [
    job.id, job.kind, job.owner, job.serverId, JSON.stringify(job.data), job.createdAt, job.createdAt,
  ]);
}

/** Fails every running job whose heartbeat is older than STALE_MS (its server stopped). */
export async function failStaleJobs(db: Queryable, now = Date.now()): Promise<void> {
  await db.run("UPDATE jobs SET state = 'failed', error = ?, finished_at = ?, updated_at = ? WHERE state = 'running' AND updated_at < ?", [
    `The job failed: ${SERVER_STOPPED}`, now, now, now - STALE_MS,
  ]);
}

/** At start: fails every job this server was running before it stopped. */
export async function failOwnJobs(db: Queryable, serverId: string, now = Date.now()): Promise<void> {
  await db.run("UPDATE jobs SET state = 'failed', error = ?, finished_at = ?, updated_at = ? WHERE state = 'running' AND server_id = ?", [
    `The job failed: ${SERVER_STOPPED}`, now, now, serverId,
  ]);
}

/** One job of a kind (a stale running one is failed first), or undefined. */
export async function readJob<D>(db: Queryable, id: string, kind: JobKind): Promise<JobRow<D> | undefined> {
  const read = () => db.get<RawRow>(`SELECT ${COLUMNS} FROM jobs WHERE id = ? AND kind = ?`, [id, kind]);
  let row = await read();
  if (row?.state === 'running' && Number(row.updated_at) < Date.now() - STALE_MS) {
    await failStaleJobs(db);
    row = await read();
  }
  return row ? fromRaw<D>(row) : undefined;
}

/** The newest jobs of a kind created since `since`, of one owner (null: everyone's). */
export async function listJobs<D>(db: Queryable, kind: JobKind, owner: string | null, since: number, limit: number): Promise<JobRow<D>[]> {
  const read = () => owner === null
    ? db.all<RawRow>(`SELECT ${COLUMNS} FROM jobs WHERE kind = ? AND created_at >= ? ORDER BY created_at DESC LIMIT ?`, [kind, since, limit])
    : db.all<RawRow>(`SELECT ${COLUMNS} FROM jobs WHERE kind = ? AND owner = ? AND created_at >= ? ORDER BY created_at DESC LIMIT ?`, [kind, owner, since, limit]);
  let rows = await read();
  if (rows.some((r) => r.state === 'running' && Number(r.updated_at) < Date.now() - STALE_MS)) {
    await failStaleJobs(db);
    rows = await read();
  }
  return rows.map((r) => fromRaw<D>(r));
}

/** Ends a running job; false when it was deleted (or failed by another server) meanwhile. */
export async function finishJob(db: Queryable, id: string, state: 'done' | 'failed', data: unknown, error: string | null, now = Date.now()): Promise<boolean> {
  return (await db.run("UPDATE jobs SET state = ?, data = ?, error = ?, finished_at = ?, updated_at = ? WHERE id = ? AND state = 'running'", [
    state, JSON.stringify(data), error, now, now, id,
  ])).changes > 0;
}

/** Marks a done job failed (its file is missing). */
export async function failJob(db: Queryable, id: string, error: string, now = Date.now()): Promise<void> {
  await db.run("UPDATE jobs SET state = 'failed', error = ?, updated_at = ? WHERE id = ?", [error, now, id]);
}

/** Removes a job and its files (DELETE, retention). */
export async function deleteJob(store: Store, id: string): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.run('DELETE FROM job_files WHERE job_id = ?', [id]);
    await tx.run('DELETE FROM jobs WHERE id = ?', [id]);
  });
}

/** Whether the job still exists (not deleted). */
export async function jobExists(db: Queryable, id: string): Promise<boolean> {
  return (await db.value('SELECT 1 FROM jobs WHERE id = ?', [id])) !== undefined;
}

/** Removes the jobs of the kinds created before `before`, with their files; the ids removed. */
export async function sweepJobs(store: Store, kinds: readonly JobKind[], before: number): Promise<string[]> {
  const marks = kinds.map(() => '?').join(', ');
  const ids = await store.column<string>(`SELECT id FROM jobs WHERE kind IN (${marks}) AND created_at < ?`, [...kinds, before]);
  for (const id of ids) await deleteJob(store, id);
  return ids;
}

/**
 * Keeps a running job alive in the table: a heartbeat every HEARTBEAT_MS and progress writes at most every
 * PROGRESS_MS (each skipped while the database is busy); calls `gone` once when the job was deleted through any server.
 */
export class JobPulse {
  private last = 0;
  private pending: unknown;
  private stopped = false;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly store: Store, private readonly id: string, private readonly gone: () => void) {
    this.timer = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.timer.unref();
  }

  /** Records the job's fields, at most every PROGRESS_MS (the latest wins). */
  progress(data: unknown): void {
    this.pending = data;
    const now = Date.now();
    if (now - this.last < PROGRESS_MS) return;
    this.last = now;
    void this.flush();
  }

  /** Stops the heartbeat (the job ended). */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  private async flush(): Promise<void> {
    await this.write(JSON.stringify(this.pending));
  }

  private async beat(): Promise<void> {
    await this.write(this.pending === undefined ? undefined : JSON.stringify(this.pending));
  }

  /**
   * Writes the heartbeat (and the fields, when given) unless the database is busy (a long import's transaction:
   * the next write catches up), then ends the job here when its row is gone.
   */
  private async write(data: string | undefined): Promise<void> {
    if (this.stopped) return;
    try {
      const wrote = data === undefined
        ? await this.store.runIfIdle("UPDATE jobs SET updated_at = ? WHERE id = ? AND state = 'running'", [Date.now(), this.id])
        : await this.store.runIfIdle("UPDATE jobs SET data = ?, updated_at = ? WHERE id = ? AND state = 'running'", [data, Date.now(), this.id]);
      if (wrote && !this.stopped && (await this.store.value("SELECT 1 FROM jobs WHERE id = ? AND state = 'running'", [this.id])) === undefined) this.end();
    } catch {
      // the database is away: the next write tries again
    }
  }

  private end(): void {
    if (this.stopped) return;
    this.stop();
    this.gone();
  }
}
