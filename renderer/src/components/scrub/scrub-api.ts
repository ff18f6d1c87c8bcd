/**
 * Scrub jobs over the API (docs/cati-api.md#scrubs): start one with an upload, follow it, list the recent ones, delete,
 * and save a result file (the desktop's save dialog, or a browser download).
 */
import { request, uploadForm, type UploadProgress } from '../../api/client.ts';
import { downloadFile } from '../../api/download.ts';
import type { ScrubTarget } from './scrub-preview.ts';

export interface ScrubJob {
  Id: string;
  State: 'running' | 'done' | 'failed';
  FileName: string;
  Rows: number | null;
  Processed: number;
  Kept: number;
  Removed: number;
  Invalid: number;
  /** Of Removed: the repeats a `dedupe` scrub took out. */
  Duplicates?: number;
  Error: string | null;
  CreatedAt: string;
  FinishedAt: string | null;
}

const base = (target: ScrubTarget) => (target === 'cati' ? '/cati/scrubs' : '/optout/scrubs');
const jobPath = (target: ScrubTarget, id: string) => (target === 'cati' ? `/cati/scrubs('${id}')` : `/optout/scrubs/${encodeURIComponent(id)}`);

/** Uploads the list and starts the scrub; answers the job (running). */
export function startScrub(target: ScrubTarget, file: File, fields: Record<string, string>, on: UploadProgress): Promise<ScrubJob> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) if (v !== '') form.append(k, v);
  form.append('file', file, file.name);
  return uploadForm<ScrubJob>(base(target), form, on);
}

/** The job as it stands. */
export const getScrub = (target: ScrubTarget, id: string) => request<ScrubJob>('GET', jobPath(target, id));

/** The caller's recent scrubs, newest first. */
export const listScrubs = async (target: ScrubTarget) => (await request<{ value: ScrubJob[] }>('GET', base(target))).value;

/** Deletes the job and its files. */
export const deleteScrub = (target: ScrubTarget, id: string) => request<void>('DELETE', jobPath(target, id));

/** Saves the kept or removed rows as CSV or XLSX; answers the file name, null when cancelled. */
export function saveScrubResult(target: ScrubTarget, job: ScrubJob, which: 'kept' | 'removed', format: 'csv' | 'xlsx'): Promise<string | null> {
  const stem = job.FileName.replace(/\.[^.]*$/, '') || 'scrub';
  return downloadFile(`${jobPath(target, job.Id)}/${which}`, format === 'xlsx' ? { $format: 'xlsx' } : {}, `${stem}-${which}.${format}`);
}
