/**
 * A scrub's result files in the database (docs/cati-api.md#scrubs), so every server on it can send them: each file
 * (JSON lines, scrub-files.ts) is copied in chunks of whole lines of about CHUNK_BYTES when the job ends, and read
 * back one chunk at a time on download. Memory stays flat whatever the size.
 */
import { createReadStream } from 'node:fs';
import type { Queryable } from '../db/store.ts';
import type { ResultName } from './scrub-files.ts';

const CHUNK_BYTES = 1 << 20;
const NEWLINE = 0x0a;

/** Copies a result file into `job_files`; answers how many chunks it wrote. */
export async function saveJobFile(db: Queryable, jobId: string, name: ResultName, path: string): Promise<number> {
  let seq = 0;
  let carry: Buffer = Buffer.alloc(0);
  const write = async (bytes: Buffer) => {
    await db.run('INSERT INTO job_files (job_id, name, seq, bytes) VALUES (?, ?, ?, ?)', [jobId, name, seq++, bytes]);
  };
  for await (const piece of createReadStream(path, { highWaterMark: CHUNK_BYTES })) {
    const all: Buffer = carry.length > 0 ? Buffer.concat([carry, piece as Buffer]) : (piece as Buffer);
    const cut = all.lastIndexOf(NEWLINE);
    if (cut < 0 || all.length < CHUNK_BYTES) {
      carry = all;
      continue;
    }
    await write(all.subarray(0, cut + 1));
    carry = Buffer.from(all.subarray(cut + 1));
  }
  if (carry.length > 0 || seq === 0) await write(carry);
  return seq;
}

/** How many chunks of a result file the database holds. */
export async function jobFileChunks(db: Queryable, jobId: string, name: ResultName): Promise<number> {
  return Number((await db.value('SELECT COUNT(*) FROM job_files WHERE job_id = ? AND name = ?', [jobId, name])) ?? 0);
}

/** The rows of a result file in the database, one array of cells each, read a chunk at a time. */
export async function* jobFileRows(db: Queryable, jobId: string, name: ResultName, chunks: number): AsyncGenerator<string[]> {
  for (let seq = 0; seq < chunks; seq++) {
    const bytes = await db.value<Buffer | Uint8Array>('SELECT bytes FROM job_files WHERE job_id = ? AND name = ? AND seq = ?', [jobId, name, seq]);
    if (bytes === undefined) throw new Error(`the result file '${name}' is missing`);
    for (const line of Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8').split('\n')) if (line !== '') yield JSON.parse(line) as string[];
  }
}
