import type { NextFunction, Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StorageEngine } from 'multer';
import { actorOf } from '../audit/audit-log.ts';
import { badRequest } from '../errors.ts';
import { ensureUploadDir, uploadDir } from './upload-dir.ts';
import type { EntryKind } from './entries.ts';
import type { ImportService } from './import-service.ts';
import { listOf } from './list-access.ts';

/** Room for a multipart body's boundaries and part headers around its file. */
export const MULTIPART_SLACK = 1024;

/** Largest accepted upload (docs/limits.md#limits): larger → 413 (multer's LIMIT_FILE_SIZE, mapped in errors.ts). */
export const MAX_IMPORT_BYTES = 50 * 1024 * 1024;

/**
 * The multipart parser for `file`; runs after the list's permission check, so strangers cannot make us buffer.
 * The upload streams to a file in `<data-dir>/uploads` (mode 0700, emptied at every start; never the shared
 * temp dir), which the import worker (or, for a workbook, its parser) reads, so the main thread never holds the file's bytes. multer removes
 * partial files of failed uploads, the handler removes the rest. Errors: multer's own carry a code (mapped in
 * errors.ts), file-system errors an errno code (500); the multipart parser's (busboy has no codes) are the
 * client's malformed body → 400. multer (with busboy) is loaded with the first upload, not at start.
 * `memoryUpTo`: a request whose Content-Length is at most that many bytes keeps its file in memory
 * (`req.file.buffer`, no path): a small import then makes no file-system round trip, each of which waits a turn
 * of a busy event loop (disk upload, stat, head read and removal were half of a small import's time
 * under a 50-client soak).
 */
export function uploadFile(dataDir: string, memoryUpTo = 0) {
  const dir = uploadDir(dataDir);
  type Parse = (req: Request, res: Response, done: (err?: unknown) => void) => void;
  let parsers: Promise<{ disk: Parse; memory: Parse }> | undefined;
  const load = async () => {
    const { default: multer } = await import('multer');
    const limits = { fileSize: MAX_IMPORT_BYTES, files: 1, fields: 20, parts: 21, fieldSize: 64 * 1024 };
    const parser = (storage: StorageEngine): Parse => {
      const upload = multer({ storage, limits }).single('file');
      return (req, res, done) =>
        upload(req, res, (err?: unknown) => {
          if (err === undefined) return done();
          done(err instanceof multer.MulterError || typeof (err as { code?: unknown }).code === 'string' ? err : badRequest(`Malformed multipart body: ${(err as Error).message}`));
        });
    };
    return {
      disk: parser(multer.diskStorage({ destination: (_req, _file, cb) => cb(null, ensureUploadDir(dir)) })),
      memory: parser(multer.memoryStorage()),
    };
  };
  return (req: Request, res: Response, next: NextFunction) => {
    const length = Number(req.headers['content-length']);
    const inMemory = memoryUpTo > 0 && Number.isFinite(length) && length <= memoryUpTo;
    (parsers ??= load()).then(
      (p) => (inMemory ? p.memory : p.disk)(req, res, (err) => (err === undefined ? next() : afterBody(req, () => next(err)))),
      next,
    );
  };
}

/** Writes an upload kept in memory to a file of the upload dir (mode 0600) and answers its path. */
async function spill(dataDir: string, bytes: Buffer): Promise<string> {
  const path = join(ensureUploadDir(uploadDir(dataDir)), `memory-${randomUUID()}`);
  await writeFile(path, bytes, { mode: 0o600 });
  return path;
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
export function importHandler(service: ImportService, kind: EntryKind, dataDir: string) {
  return async (req: Request, res: Response) => {
    const listInvalid = req.query.invalidRows;
    if (listInvalid !== undefined && listInvalid !== 'list') throw badRequest("invalidRows must be 'list' (or left out)");
    const file = req.file;
    if (!file) throw badRequest("Send the file as multipart/form-data in the form field 'file' (.csv, .txt or .xlsx)");
    let outcome: Awaited<ReturnType<ImportService['importFile']>>;
    if (file.buffer && service.takesInline(file.originalname, file.buffer)) {
      outcome = await service.importBytes(listOf(res).id, kind, file.buffer, actorOf(req));
    } else {
      // A file on disk, or a small one in memory that is not an inline import (a workbook): the workers read a file.
      const path = file.buffer ? await spill(dataDir, file.buffer) : file.path;
      try {
        outcome = await service.importFile(listOf(res).id, kind, file.originalname, path, actorOf(req));
      } finally {
        await rm(path, { force: true }); // before answering: an acknowledged import leaves no file behind
      }
    }
    const { invalidItems, ...result } = outcome;
    res.json(listInvalid === 'list' ? { ...result, invalidItems } : result);
  };
}
