/**
 * The HTTP side shared by `/cati/scrubs` and `/optout/scrubs`: the upload's format, the job's answer, the
 * result downloads and DELETE. The two route files add their permissions and their list.
 */
import type { Request, Response } from 'express';
import { stat } from 'node:fs/promises';
import { readHead } from '../lib/read-head.ts';
import { badRequest, conflict } from '../errors.ts';
import { detectFormat } from '../files/file-format.ts';
import { singleQuery } from '../http/request-input.ts';
import { sendCsv, sendXlsx } from './result-download.ts';
import type { ResultName } from './scrub-files.ts';
import type { ScrubView } from './scrub-job.ts';
import type { ScrubFormat } from './scrub-protocol.ts';

/** The format of an upload by its extension and content (docs/files.md#formats): a mismatch → 400. */
export async function scrubFormat(fileName: string, path: string): Promise<ScrubFormat> {
  return detectFormat(fileName, await readHead(path), (await stat(path)).size);
}

/** The uploaded file of a scrub request, or 400. */
export function uploadedFile(req: Request): Express.Multer.File {
  if (!req.file) throw badRequest("Send the list as multipart/form-data in the form field 'file' (.csv, .tsv, .txt or .xlsx)");
  return req.file;
}

/** A text field of the multipart form. */
export function formField(req: Request, name: string): string | undefined {
  const v = (req.body as Record<string, unknown> | undefined)?.[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw badRequest(`The form field '${name}' is given more than once`);
  return v;
}

/** A `true`/`false` form field (absent or empty: false), else 400. */
export function flagField(req: Request, name: string): boolean {
  const v = formField(req, name)?.trim().toLowerCase();
  if (v === undefined || v === '' || v === 'false') return false;
  if (v === 'true') return true;
  throw badRequest(`${name} must be 'true' or 'false', not '${formField(req, name)}'`);
}

/** Sends a result file: CSV, or XLSX with `$format=xlsx`; 409 while the job runs or when it failed. */
export async function sendResult(req: Request, res: Response, job: ScrubView, name: ResultName, open: (job: ScrubView, name: ResultName) => Promise<AsyncIterable<string[]>>): Promise<void> {
  const format = singleQuery(req, '$format') ?? 'csv';
  if (format !== 'csv' && format !== 'xlsx') throw badRequest(`$format must be csv or xlsx, not '${format}'`);
  if (job.state === 'running') throw conflict('The scrub is still running; download when its State is done');
  if (job.state === 'failed') throw conflict(`The scrub failed and has no files: ${job.error ?? ''}`);
  const fileName = `${job.fileName.replace(/\.[^.]*$/, '').replace(/[^\w.-]+/g, '_') || 'scrub'}-${name}`;
  const rows = await open(job, name);
  if (format === 'xlsx') await sendXlsx(res, rows, fileName);
  else await sendCsv(res, rows, fileName, job.added[name]);
}
