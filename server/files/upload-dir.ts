import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** Where uploads wait for their import: `<data-dir>/uploads`, readable by this user only. */
export const uploadDir = (dataDir: string) => join(dataDir, 'uploads');

/** Creates the upload dir (mode 0700) if it is missing and answers its path. */
export function ensureUploadDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/**
 * Empties the upload dir at server start: files of uploads cut short by a crash are removed, and a dir
 * left with a wider mode is recreated 0700.
 */
export function resetUploadDir(dataDir: string): string {
  const dir = uploadDir(dataDir);
  rmSync(dir, { recursive: true, force: true });
  ensureUploadDir(dir);
  chmodSync(dir, 0o700);
  return dir;
}
