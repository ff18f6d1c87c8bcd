/**
 * Runs one scrub: the parse worker reads the upload and normalises each row's key; this thread looks the
 * keys up in the list held in memory and appends each row to the kept or the removed file, one batch at a
 * time with a turn of the event loop between batches (a batch of 5000 rows takes a few milliseconds).
 *
 * `acceptScrub` answers once the file is known to be good (its format, its first rows, the chosen column,
 * its row count): a bad file is the request's 400/413 and leaves nothing. The rest runs after the 202;
 * a failure then marks the job failed, says why, and removes its files.
 */
import { setImmediate as yieldLoop } from 'node:timers/promises';
import { ApiError, badRequest } from '../errors.ts';
import { siblingModule, startModuleWorker } from '../db/start-worker.ts';
import { chooseColumn } from './column-rules.ts';
import { removeJobDir, resultPath, ResultWriter } from './scrub-files.ts';
import type { ScrubJob } from './scrub-job.ts';
import type { FromWorker, ScrubFormat, ScrubParseJob } from './scrub-protocol.ts';
import { WorkerChannel } from './worker-channel.ts';

const ENTRY = siblingModule('scrub-parse-worker', import.meta.url);
const HEAD_ROWS = 20;

/** What a removed row gains after its own columns, and how a match fills them. */
export interface Matcher {
  extraColumns: readonly string[];
  /** The extra cells of a removed row, or undefined when the key is not on the list. */
  match(key: string): (string | number)[] | undefined;
  /** The extra cells of a row whose key is invalid. */
  invalid: readonly (string | number)[];
}

export interface ScrubRequest {
  filePath: string;
  format: ScrubFormat;
  column?: string;
  header?: string;
  region: string | null;
  maxRows: number;
  heapMb: number;
  /** Loads the list to match against (after the 202). */
  matcher: () => Promise<Matcher>;
  /** Called once the job is done or failed (the audit row, the upload's removal). */
  finished: (job: ScrubJob) => Promise<void>;
}

const clientError = (m: Extract<FromWorker, { type: 'failed' }>) => (m.status === 413 ? new ApiError('PayloadTooLarge', m.message) : badRequest(m.message));

/** Starts the job; resolves when it is accepted (then it runs on), rejects with the 400/413 of a bad file. */
export async function acceptScrub(job: ScrubJob, req: ScrubRequest): Promise<void> {
  const workerData: ScrubParseJob = { filePath: req.filePath, format: req.format, kind: job.kind, region: req.region, maxRows: req.maxRows, headRows: HEAD_ROWS };
  const worker = startModuleWorker(ENTRY, { workerData, resourceLimits: { maxOldGenerationSizeMb: req.heapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 } });
  worker.unref(); // a scrub never keeps a stopping server alive (its files go at the next start)
  const channel = new WorkerChannel(worker, req.heapMb);
  let header: string[] | undefined;
  let width: number;
  let matcher: Promise<Matcher>;
  try {
    const head = await channel.next();
    if (head.type === 'failed') throw clientError(head);
    if (head.type !== 'head') throw new Error(`scrub worker: unexpected ${head.type}`);
    const choice = chooseColumn(head.rows, job.kind, req.column, req.header);
    width = Math.max(...head.rows.map((r) => r.length));
    if (choice.header) header = head.rows[0];
    channel.send({ type: 'start', column: choice.column, header: choice.header });
    // The list loads while the worker counts the rows (its failure is the job's, after the 202).
    matcher = req.matcher();
    matcher.catch(() => undefined);
    const count = await channel.next();
    if (count.type === 'failed') throw clientError(count);
    if (count.type !== 'count') throw new Error(`scrub worker: unexpected ${count.type}`);
    job.rows = count.rows;
  } catch (err) {
    channel.stop();
    throw err;
  }
  void runScrub(job, req, channel, header, width, matcher);
}

/** The header rows of the two files: the original one (kept), padded and followed by the extra columns (removed). */
function headerLines(header: string[] | undefined, width: number, extra: readonly string[]): { kept: string; removed: string } {
  const names = Array.from({ length: Math.max(width, header?.length ?? 0) }, (_, i) => header?.[i] ?? (header ? '' : `Column${i + 1}`));
  return { kept: header ? JSON.stringify(header) + '\n' : '', removed: JSON.stringify([...names, ...extra]) + '\n' };
}

async function runScrub(job: ScrubJob, req: ScrubRequest, channel: WorkerChannel, header: string[] | undefined, width: number, loading: Promise<Matcher>): Promise<void> {
  const kept = new ResultWriter(resultPath(job.dir, 'kept'));
  const removed = new ResultWriter(resultPath(job.dir, 'removed'));
  let cancelled = false;
  job.cancel = () => {
    cancelled = true;
    channel.stop();
    kept.destroy();
    removed.destroy();
  };
  try {
    const matcher = await loading;
    const heads = headerLines(header, width, matcher.extraColumns);
    await kept.write(heads.kept);
    await removed.write(heads.removed);
    for (;;) {
      const m = await channel.next();
      if (cancelled) return;
      if (m.type === 'failed') throw new Error(m.message);
      if (m.type === 'end') break;
      if (m.type !== 'batch') continue;
      let keptText = '';
      let removedText = '';
      for (let i = 0; i < m.lines.length; i++) {
        const key = m.keys[i]!;
        const line = m.lines[i]!;
        const extra = key === null ? matcher.invalid : matcher.match(key);
        if (!extra) {
          keptText += line + '\n';
          job.kept++;
          continue;
        }
        if (key === null) job.invalid++;
        else job.removed++;
        const cells = JSON.parse(line) as (string | number)[];
        while (cells.length < width) cells.push('');
        removedText += JSON.stringify([...cells, ...extra.map(String), ...(key === null ? [''] : [key])]) + '\n';
      }
      job.processed += m.lines.length;
      channel.send({ type: 'more' });
      await kept.write(keptText);
      await removed.write(removedText);
      await yieldLoop();
    }
    await kept.close();
    await removed.close();
    if (cancelled) return;
    job.state = 'done';
  } catch (err) {
    if (cancelled) return;
    channel.stop();
    kept.destroy();
    removed.destroy();
    await removeJobDir(job.dir);
    job.state = 'failed';
    job.error = `The scrub failed: ${(err as Error).message}`;
  } finally {
    job.cancel = undefined;
  }
  job.finishedAt = Date.now();
  await req.finished(job);
}
