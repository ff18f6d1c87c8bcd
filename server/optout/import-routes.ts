import type { NextFunction, Request, Response } from 'express';
import multer from 'multer';
import { rm } from 'node:fs/promises';
import { actorOf } from '../audit/audit-log.ts';
import { badRequest } from '../errors.ts';
import { ensureUploadDir, uploadDir } from './upload-dir.ts';
import type { EntryKind } from './entries.ts';
import type { ImportService } from './import-service.ts';
import { listOf } from './list-access.ts';

/** Largest accepted upload (CONTRACT §7): larger → 413 (multer's LIMIT_FILE_SIZE, mapped in errors.ts). */
export const MAX_IMPORT_BYTES = 50 * 1024 * 1024;

/**
 * The multipart parser for `file`; runs after the list's permission check, so strangers cannot make us buffer.
 * The upload streams to a file in `<data-dir>/uploads` (mode 0700, emptied at every start; never the shared
 * temp dir), which the import worker (or, for a workbook, its parser) reads, so the main thread never holds the file's bytes. multer removes
 * partial files of failed uploads, the handler removes the rest. Errors: multer's own carry a code (mapped in
 * errors.ts), file-system errors an errno code (500); the multipart parser's (busboy has no codes) are the
 * client's malformed body → 400.
 */
export function uploadFile(dataDir: string) {
  const dir = uploadDir(dataDir);
  const upload = multer({
    storage: multer.diskStorage({ destination: (_req, _file, cb) => cb(null, ensureUploadDir(dir)) }),
    limits: { fileSize: MAX_IMPORT_BYTES, files: 1, fields: 20, parts: 21, fieldSize: 64 * 1024 },
  }).single('file');
  return (req: Request, res: Response, next: NextFunction) => {
    upload(req, res, (err?: unknown) => {
      if (err === undefined) return next();
      const answer = err instanceof multer.MulterError || typeof (err as { code?: unknown }).code === 'string' ? err : badRequest(`Malformed multipart body: ${(err as Error).message}`);
      afterBody(req, () => next(answer));
    });
  };
}

/** How long a refused upload's remaining body is read (and discarded) before the answer goes out. */
const DISCARD_MS = 30_000;

/**
 * Calls `done` once the rest of a refused upload has arrived (read and discarded), or after DISCARD_MS. A client
 * still sending a 50 MiB body when the 413 came back could find the connection reset before it read the answer
 * (seen under load with fetch; common with HTTP libraries that read only after sending): answering at the end
 * of the body lets every client read why.
 */
function afterBody(req: Request, done: () => void): void {
  if (req.readableEnded || req.destroyed) return done();
  let called = false;
  const finish = () => {
    if (called) return;
    called = true;
    clearTimeout(timer);
    req.off('end', finish).off('close', finish).off('error', finish);
    done();
  };
  const timer = setTimeout(finish, DISCARD_MS);
  req.on('end', finish).on('close', finish).on('error', finish);
  req.resume();
}

/**
 * POST …/emails/import or …/domains/import (multipart, field `file`) → `{newRows, duplicatedRows, invalidRows}`.
 * Extension: `?invalidRows=list` adds `invalidItems` (the first 1000 refused values: `{row, value, reason}`).
 */
export function importHandler(service: ImportService, kind: EntryKind) {
  return async (req: Request, res: Response) => {
    const listInvalid = req.query.invalidRows;
    if (listInvalid !== undefined && listInvalid !== 'list') throw badRequest("invalidRows must be 'list' (or left out)");
    const file = req.file;
    if (!file) throw badRequest("Send the file as multipart/form-data in the form field 'file' (.csv, .txt or .xlsx)");
    let outcome: Awaited<ReturnType<ImportService['importFile']>>;
    try {
      outcome = await service.importFile(listOf(res).id, kind, file.originalname, file.path, actorOf(req));
    } finally {
      await rm(file.path, { force: true }); // before answering: an acknowledged import leaves no file behind
    }
    const { invalidItems, ...result } = outcome;
    res.json(listInvalid === 'list' ? { ...result, invalidItems } : result);
  };
}
