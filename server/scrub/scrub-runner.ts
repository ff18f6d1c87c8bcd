/**
 * Runs one scrub in a process of its own (scrub-job-process.ts), which reads the list from the database, has its
 * parse worker read the upload, normalise each row's key, match it and write the kept and removed files, and copies
 * those into the database: this process only chooses the column and follows the counts, and when the job ends the
 * system takes back all the memory it used (docs/performance.md#memory-after-a-job).
 *
 * `acceptScrub` answers once the file is known to be good (its format, its first rows, the chosen column,
 * its row count): a bad file is the request's 400/413 and leaves nothing. The rest runs after the 202;
 * a failure then marks the job failed, says why, and removes its files.
 */
import type { ProcessLauncher } from '../db/job-process.ts';
import { siblingModule } from '../db/start-worker.ts';
import { ApiError, badRequest } from '../errors.ts';
import { chooseColumn } from './column-rules.ts';
import { JobChannel } from './job-channel.ts';
import type { ListSource } from './list-entries.ts';
import { removeJobDir, resultPath } from './scrub-files.ts';
import type { ScrubJob } from './scrub-job.ts';
import type { FromJob, ScrubFormat, ScrubJobData } from './scrub-protocol.ts';

const ENTRY = siblingModule('scrub-job-process', import.meta.url);
const HEAD_ROWS = 20;

export interface ScrubRequest {
  filePath: string;
  format: ScrubFormat;
  column?: string;
  header?: string;
  region: string | null;
  /** The scrub options (docs/cati-api.md#scrubs): remove repeats; add Normalized, LineType, Region (phone scrubs). */
  dedupe?: boolean;
  annotate?: boolean;
  /** The workbook sheet to read (name or 1-based number; docs/files.md#xlsx). */
  sheet?: string | undefined;
  maxRows: number;
  heapMb: number;
  /** The list to match against (read by the job while its worker starts and counts the rows). */
  list: ListSource;
  /** The database the job opens for itself (the store's connectionUrl). */
  database: string;
  /** How the job gets its process (the server's config; default Node's fork). */
  launcher?: ProcessLauncher | undefined;
  /** Called once the job is done or failed (its files and state in the database, the audit row, the upload's removal). */
  finished: (job: ScrubJob) => Promise<void>;
  /** Called with the job after each progress message of the worker (its state written for every server). */
  progress?: (job: ScrubJob) => void;
}

/** A bad file's 400/413; the job's own failure (the database's, the process's) as it is. */
function acceptError(m: FromJob): Error {
  if (m.type === 'failed') return m.status === 413 ? new ApiError('PayloadTooLarge', m.message) : badRequest(m.message);
  return new Error(m.type === 'error' ? `The scrub failed: ${m.message}` : `scrub job: unexpected ${m.type}`);
}

/** Starts the job; resolves when it is accepted (then it runs on), rejects with the 400/413 of a bad file. */
export async function acceptScrub(job: ScrubJob, req: ScrubRequest): Promise<void> {
  const data: ScrubJobData = {
    jobId: job.id,
    parse: { filePath: req.filePath, format: req.format, kind: job.kind, region: req.region, maxRows: req.maxRows, headRows: HEAD_ROWS, sheet: req.sheet },
    heapMb: req.heapMb,
    list: req.list.pages,
  };
  const channel = new JobChannel(ENTRY, data, req.launcher);
  try {
    // The job reads the list from the start, while its worker reads the head and counts the rows.
    channel.send({ type: 'database', url: req.database });
    const head = await channel.next();
    if (head.type !== 'head') throw acceptError(head);
    job.encoding = head.encoding;
    const choice = chooseColumn(head.rows, job.kind, req.column, req.header);
    const width = Math.max(...head.rows.map((r) => r.length));
    const annotate = req.annotate === true && job.kind === 'phone';
    const dedupe = req.dedupe === true;
    const added = addedColumns(req.list.extraColumns, dedupe, annotate);
    const heads = headerLines(choice.header ? head.rows[0] : undefined, width, added);
    job.added = { kept: added.kept.length, removed: added.removed.length };
    channel.send({
      type: 'start', column: choice.column, header: choice.header, width: heads.width, dedupe, annotate,
      keptPath: resultPath(job.dir, 'kept'), removedPath: resultPath(job.dir, 'removed'), keptHead: heads.kept, removedHead: heads.removed,
    });
    const count = await channel.next();
    if (count.type !== 'count') throw acceptError(count);
    job.rows = count.rows;
  } catch (err) {
    await channel.stop();
    throw err;
  }
  void runScrub(job, req, channel);
}

/** The columns the scrub adds after the sample's own: the list's, MatchedRow (dedupe), Normalized, LineType and Region (annotate). */
function addedColumns(listColumns: readonly string[], dedupe: boolean, annotate: boolean): { kept: string[]; removed: string[] } {
  const annotation = annotate ? ['Normalized', 'LineType', 'Region'] : ['Normalized'];
  return { kept: annotate ? annotation : [], removed: [...listColumns, ...(dedupe ? ['MatchedRow'] : []), ...annotation] };
}

/**
 * The header rows of the two files: the original one padded to the file's width and followed by the added
 * columns (a file without a header gains `ColumnN` names in `/removed`, and in `/kept` only when it adds columns).
 */
function headerLines(header: string[] | undefined, width: number, added: { kept: string[]; removed: string[] }): { kept: string; removed: string; width: number } {
  const all = Math.max(width, header?.length ?? 0);
  const names = Array.from({ length: all }, (_, i) => header?.[i] ?? (header ? '' : `Column${i + 1}`));
  const kept = header || added.kept.length > 0 ? JSON.stringify(added.kept.length > 0 ? [...names, ...added.kept] : header) + '\n' : '';
  return { kept, removed: JSON.stringify([...names, ...added.removed]) + '\n', width: all };
}

async function runScrub(job: ScrubJob, req: ScrubRequest, channel: JobChannel): Promise<void> {
  let cancelled = false;
  job.cancel = async () => {
    cancelled = true;
    await channel.stop();
  };
  let outcome: Pick<ScrubJob, 'state' | 'error' | 'files'>;
  try {
    let m = await channel.next();
    for (; m.type !== 'end'; m = await channel.next()) {
      if (cancelled) return;
      if (m.type === 'failed' || m.type === 'error') throw new Error(m.message);
      if (m.type !== 'progress') continue;
      job.processed = m.processed;
      job.kept = m.kept;
      job.removed = m.removed;
      job.invalid = m.invalid;
      job.duplicates = m.duplicates;
      req.progress?.(job);
    }
    if (cancelled) return;
    outcome = { state: 'done', error: null, files: m.files };
  } catch (err) {
    if (cancelled) return;
    await channel.stop();
    await removeJobDir(job.dir);
    outcome = { state: 'failed', error: `The scrub failed: ${(err as Error).message}`, files: null };
  } finally {
    job.cancel = undefined;
  }
  // The audit row is written before the job says it is over: whoever sees "done" finds it audited.
  const over = { ...outcome, finishedAt: Date.now() };
  await req.finished({ ...job, ...over });
  Object.assign(job, over);
}
