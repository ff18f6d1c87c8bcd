/**
 * Runs one scrub: the parse worker reads the upload, normalises each row's key, matches it and writes the
 * kept and removed files (scrub-parse-worker.ts); this thread reads the list from the database and sends it
 * to the worker in packed chunks (a turn of the event loop after each), then only follows the counts.
 *
 * `acceptScrub` answers once the file is known to be good (its format, its first rows, the chosen column,
 * its row count): a bad file is the request's 400/413 and leaves nothing. The rest runs after the 202;
 * a failure then marks the job failed, says why, and removes its files.
 */
import { ApiError, badRequest } from '../errors.ts';
import { siblingModule, startModuleWorker } from '../db/start-worker.ts';
import { chooseColumn } from './column-rules.ts';
import type { ListSource } from './list-entries.ts';
import { removeJobDir, resultPath } from './scrub-files.ts';
import type { ScrubJob } from './scrub-job.ts';
import type { FromWorker, ScrubFormat, ScrubParseJob } from './scrub-protocol.ts';
import { WorkerChannel } from './worker-channel.ts';

const ENTRY = siblingModule('scrub-parse-worker', import.meta.url);
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
  /** The list to match against (read while the worker starts and counts the rows). */
  list: ListSource;
  /** Called once the job is done or failed (its files and state in the database, the audit row, the upload's removal). */
  finished: (job: ScrubJob) => Promise<void>;
  /** Called with the job after each progress message of the worker (its state written for every server). */
  progress?: (job: ScrubJob) => void;
}

const clientError = (m: Extract<FromWorker, { type: 'failed' }>) => (m.status === 413 ? new ApiError('PayloadTooLarge', m.message) : badRequest(m.message));

/** Starts the job; resolves when it is accepted (then it runs on), rejects with the 400/413 of a bad file. */
export async function acceptScrub(job: ScrubJob, req: ScrubRequest): Promise<void> {
  const workerData: ScrubParseJob = { filePath: req.filePath, format: req.format, kind: job.kind, region: req.region, maxRows: req.maxRows, headRows: HEAD_ROWS, sheet: req.sheet };
  const worker = startModuleWorker(ENTRY, { workerData, resourceLimits: { maxOldGenerationSizeMb: req.heapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 } });
  worker.unref(); // a scrub never keeps a stopping server alive (its files go at the next start)
  const channel = new WorkerChannel(worker, req.heapMb);
  // The list is read and sent from the start, while the worker starts, reads the head and counts the rows
  // (its failure is the job's, after the 202; a bad file stops it: the channel refuses more).
  const sending = req.list.send((chunk) => channel.send(chunk)).then(() => channel.send({ type: 'entriesEnd' }));
  sending.catch(() => undefined);
  try {
    const head = await channel.next();
    if (head.type === 'failed') throw clientError(head);
    if (head.type !== 'head') throw new Error(`scrub worker: unexpected ${head.type}`);
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
    if (count.type === 'failed') throw clientError(count);
    if (count.type !== 'count') throw new Error(`scrub worker: unexpected ${count.type}`);
    job.rows = count.rows;
  } catch (err) {
    await channel.stop();
    throw err;
  }
  void runScrub(job, req, channel, sending);
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

async function runScrub(job: ScrubJob, req: ScrubRequest, channel: WorkerChannel, sending: Promise<void>): Promise<void> {
  let cancelled = false;
  job.cancel = async () => {
    cancelled = true;
    await channel.stop();
  };
  let outcome: Pick<ScrubJob, 'state' | 'error'>;
  try {
    await sending;
    for (;;) {
      const m = await channel.next();
      if (cancelled) return;
      if (m.type === 'failed') throw new Error(m.message);
      if (m.type === 'end') break;
      if (m.type !== 'progress') continue;
      job.processed = m.processed;
      job.kept = m.kept;
      job.removed = m.removed;
      job.invalid = m.invalid;
      job.duplicates = m.duplicates;
      req.progress?.(job);
    }
    if (cancelled) return;
    outcome = { state: 'done', error: null };
  } catch (err) {
    if (cancelled) return;
    await channel.stop();
    await removeJobDir(job.dir);
    outcome = { state: 'failed', error: `The scrub failed: ${(err as Error).message}` };
  } finally {
    job.cancel = undefined;
  }
  // The audit row is written before the job says it is over: whoever sees "done" finds it audited.
  const over = { ...outcome, finishedAt: Date.now() };
  await req.finished({ ...job, ...over });
  Object.assign(job, over);
}
