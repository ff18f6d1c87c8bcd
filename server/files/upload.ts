/**
 * Taking an uploaded file in (docs/files.md#limits): the multipart parser for the form field `file`, its size
 * limit, and the answer to a refused upload sent only once its body has arrived.
 */
import type { NextFunction, Request, Response } from 'express';
import type { StorageEngine } from 'multer';
import { badRequest } from '../errors.ts';
import { ensureUploadDir, uploadDir } from './upload-dir.ts';

/** Room for a multipart body's boundaries and part headers around its file. */
export const MULTIPART_SLACK = 1024;

/** Largest accepted upload (docs/files.md#limits): larger → 413 (multer's LIMIT_FILE_SIZE, mapped in errors.ts). */
export const MAX_IMPORT_BYTES = 50 * 1024 * 1024;

/**
 * The multipart parser for `file`; runs after the list's permission check, so strangers cannot make us buffer.
 * The upload streams to a file in `<data-dir>/uploads` (mode 0700, emptied at every start; never the shared
 * temp dir), which the import worker (or, for a workbook, its parser) reads, so the main thread never holds the file's bytes. multer removes
 * partial files of failed uploads, the handler removes the rest. Errors: multer's own carry a code (mapped in
 * errors.ts), file-system errors an errno code (500); the multipart parser's (busboy has no codes) are the
 * client's malformed body → 400. multer (with busboy) is loaded with the first upload, not at start (cold start).
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
