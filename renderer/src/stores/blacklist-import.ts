/**
 * Blacklist file imports (docs/cati-api.md#blacklist-imports): the file (or pasted text, sent as a .txt file) is
 * uploaded to `POST /cati/blacklist/imports` and read by the server's rules (docs/files.md); the job is followed
 * until it is done, reporting `Processed` of `Rows`.
 */
import { request, uploadForm } from '../api/client.ts';
import { t } from '../i18n/index.ts';

export type BlacklistType = 'Equal' | 'StartWith';

/** A refused row: its 1-based data row, the number as written, the server's reason. */
export interface InvalidRow {
  line: number;
  value: string;
  message: string;
}

/** The job as the server answers it. */
export interface ImportJob {
  Id: string;
  State: 'running' | 'done' | 'failed';
  FileName: string;
  Encoding: string | null;
  Rows: number;
  Processed: number;
  Added: number;
  Duplicates: number;
  Invalid: number;
  Error: string | null;
  InvalidRows: { Row: number; Value: string; Message: string }[];
}

/** The outcome the screen shows. */
export interface FileImportResult {
  Added: number;
  Duplicates: number;
  Invalid: number;
  /** The first 100 refused rows. */
  invalidRows: InvalidRow[];
}

/** What the person chose besides the file. */
export interface ImportChoices {
  type: BlacklistType;
  sheet?: string;
}

const POLL_MS = 300;
/** A job is followed for at most this long (1,000,000 rows take well under a minute). */
const MAX_WAIT_MS = 30 * 60_000;

/**
 * Uploads `file` and follows the job to its end; `onProgress` hears the rows read of all rows. A file the server
 * refuses (400/413) or a job that fails throws with the server's reason; nothing was stored then.
 */
export async function importFile(path: string, file: File, choices: ImportChoices, onProgress: (done: number, total: number) => void): Promise<FileImportResult> {
  const form = new FormData();
  form.append('type', choices.type);
  if (choices.sheet) form.append('sheet', choices.sheet);
  form.append('file', file, file.name);
  let job = await uploadForm<ImportJob>(path, form, { progress: () => undefined, processing: () => undefined });
  const started = Date.now();
  while (job.State === 'running' && Date.now() - started < MAX_WAIT_MS) {
    onProgress(job.Processed, job.Rows);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    job = await request<ImportJob>('GET', `${path}('${job.Id}')`);
  }
  if (job.State === 'running') throw new Error(t('blacklist.import.stillRunning'));
  if (job.State === 'failed') throw new Error(job.Error ?? t('blacklist.import.failed'));
  onProgress(job.Rows, job.Rows);
  return {
    Added: job.Added,
    Duplicates: job.Duplicates,
    Invalid: job.Invalid,
    invalidRows: job.InvalidRows.map((r) => ({ line: r.Row, value: r.Value, message: r.Message })),
  };
}
