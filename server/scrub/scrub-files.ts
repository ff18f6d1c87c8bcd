/**
 * Where scrub jobs keep their files: `<data-dir>/scrubs/<job id>/` (mode 0700), each result as JSON lines
 * (one array of cells per row, the header row first when there is one), written by the parse worker as the
 * job runs and turned into CSV or XLSX when downloaded. The whole directory is emptied when the server starts.
 */
import { chmodSync, createReadStream, mkdirSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** `<data-dir>/scrubs`. */
export const scrubsDir = (dataDir: string) => join(dataDir, 'scrubs');

/** Empties (and re-creates, 0700) the scrubs directory: at start nothing of an earlier run is kept. */
export function resetScrubsDir(dataDir: string): string {
  const dir = scrubsDir(dataDir);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  return dir;
}

/** The two result files of a job. */
export type ResultName = 'kept' | 'removed';

/** Creates a job's directory (0700) and answers its path. */
export function makeJobDir(dataDir: string, id: string): string {
  const dir = join(scrubsDir(dataDir), id);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** Removes a job's directory and everything in it. */
export async function removeJobDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

export const resultPath = (dir: string, name: ResultName) => join(dir, `${name}.jsonl`);

/** The rows of a result file, one array of cells each, read as a stream. */
export async function* resultRows(path: string): AsyncGenerator<string[]> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) if (line !== '') yield JSON.parse(line) as string[];
}
