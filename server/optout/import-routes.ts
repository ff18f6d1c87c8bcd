import type { NextFunction, Request, Response } from 'express';
import multer from 'multer';
import { rm } from 'node:fs/promises';
import { actorOf } from '../audit/audit-log.ts';
import { badRequest } from '../errors.ts';
import type { EntryKind } from './entries.ts';
import type { ImportService } from './import-service.ts';
import { listOf } from './list-access.ts';

/** Largest accepted upload (CONTRACT §7): larger → 413 (multer's LIMIT_FILE_SIZE, mapped in errors.ts). */
export const MAX_IMPORT_BYTES = 50 * 1024 * 1024;

// Disk storage (the OS temp dir): the upload streams to a file the worker reads, so the main thread never
// holds the file's bytes; multer removes partial files of failed uploads, the handler removes the rest.
const upload = multer({
  storage: multer.diskStorage({}),
  limits: { fileSize: MAX_IMPORT_BYTES, files: 1, fields: 20, parts: 21, fieldSize: 64 * 1024 },
}).single('file');

/** The multipart parser for `file`; runs after the list's permission check, so strangers cannot make us buffer. */
export function uploadFile(req: Request, res: Response, next: NextFunction) {
  upload(req, res, next);
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
    try {
      const { invalidItems, ...result } = await service.importFile(listOf(res).id, kind, file.originalname, file.path, actorOf(req));
      res.json(listInvalid === 'list' ? { ...result, invalidItems } : result);
    } finally {
      await rm(file.path, { force: true });
    }
  };
}
