import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { actorOf } from '../audit/audit-log.ts';
import { badRequest } from '../errors.ts';
import { FILE_EXTENSIONS } from '../files/file-format.ts';
import { ensureUploadDir, uploadDir } from '../files/upload-dir.ts';
import type { EntryKind } from './entries.ts';
import type { ImportService } from './import-service.ts';
import { listOf } from './list-access.ts';

/** Writes an upload kept in memory to a file of the upload dir (mode 0600) and answers its path. */
async function spill(dataDir: string, bytes: Buffer): Promise<string> {
  const path = join(ensureUploadDir(uploadDir(dataDir)), `memory-${randomUUID()}`);
  await writeFile(path, bytes, { mode: 0o600 });
  return path;
}

/**
 * POST …/emails/import or …/domains/import (multipart, field `file`, optional `sheet`) → `{newRows, duplicatedRows,
 * invalidRows, Encoding}` (docs/optout-api.md#import, docs/files.md).
 * Extension: `?invalidRows=list` adds `invalidItems` (the first 1000 refused values: `{row, value, reason}`).
 */
export function importHandler(service: ImportService, kind: EntryKind, dataDir: string) {
  return async (req: Request, res: Response) => {
    const listInvalid = req.query.invalidRows;
    if (listInvalid !== undefined && listInvalid !== 'list') throw badRequest("invalidRows must be 'list' (or left out)");
    const file = req.file;
    if (!file) throw badRequest(`Send the file as multipart/form-data in the form field 'file' (${FILE_EXTENSIONS})`);
    const sheet = typeof req.body?.sheet === 'string' ? (req.body.sheet as string) : undefined;
    let outcome: Awaited<ReturnType<ImportService['importFile']>>;
    if (file.buffer && service.takesInline(file.originalname, file.buffer)) {
      outcome = await service.importBytes(listOf(res).id, kind, file.originalname, file.buffer, actorOf(req));
    } else {
      // A file on disk, or a small one in memory that is not an inline import (a workbook): the workers read a file.
      const path = file.buffer ? await spill(dataDir, file.buffer) : file.path;
      try {
        outcome = await service.importFile(listOf(res).id, kind, file.originalname, path, actorOf(req), sheet);
      } finally {
        await rm(path, { force: true }); // before answering: an acknowledged import leaves no file behind
      }
    }
    const { invalidItems, encoding, ...counts } = outcome;
    const result = { ...counts, Encoding: encoding };
    res.json(listInvalid === 'list' ? { ...result, invalidItems } : result);
  };
}
