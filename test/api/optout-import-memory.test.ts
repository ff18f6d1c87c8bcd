/**
 * Under load (docs/deployment.md#reliability), a small import's body stays in memory (no file-system round trip, each
 * of which waits a turn of a busy event loop); larger bodies still stream to `<data-dir>/uploads`, and a small
 * workbook (not an inline import) is written there for the workers. Watched with fs.watch on the upload dir.
 */
import { readdirSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import XLSX from 'xlsx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let list: number;
beforeAll(async () => {
  t = await startTestServer();
  list = (await t.json('POST', '/optout/lists', { body: { projectId: 'p77' } })).body.id;
});
afterAll(() => t.close());

/** Runs `body` while watching the upload dir; answers its result and the names of files seen there. */
async function watched<T>(body: () => Promise<T>): Promise<{ result: T; seen: string[] }> {
  const seen: string[] = [];
  const watcher: FSWatcher = watch(join(t.dataDir, 'uploads'), (_event, name) => seen.push(String(name)));
  try {
    const result = await body();
    await new Promise((ok) => setTimeout(ok, 100)); // inotify events of the request's last writes arrive
    return { result, seen };
  } finally {
    watcher.close();
  }
}

function upload(content: Uint8Array | string, name: string) {
  const fd = new FormData();
  fd.append('file', new Blob([content as BlobPart]), name);
  return t.json('POST', `/optout/lists/${list}/emails/import`, { raw: fd });
}

describe('where an upload waits for its import', () => {
  it('a small text file never touches the disk; a large one streams to the upload dir; both are imported', async () => {
    const small = await watched(() => upload('a@x.com\nb@x.com\n', 'small.csv'));
    expect(small.result.body).toEqual({ newRows: 2, duplicatedRows: 0, invalidRows: 0, Encoding: 'utf-8' });
    expect(small.seen).toEqual([]);

    const rows = Array.from({ length: 5000 }, (_, i) => `user${i}@large.example`).join('\n'); // ~110 KB
    const large = await watched(() => upload(rows, 'large.csv'));
    expect(large.result.body).toEqual({ newRows: 5000, duplicatedRows: 0, invalidRows: 0, Encoding: 'utf-8' });
    expect(large.seen.length).toBeGreaterThan(0);
  });

  it('a small workbook kept in memory is written for the workers, imported, and removed', async () => {
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['email'], ['c@x.com'], ['d@x.com']]), 'Sheet1');
    const bytes = new Uint8Array(XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer);
    const r = await watched(() => upload(bytes, 'small.xlsx'));
    expect(r.result.body).toEqual({ newRows: 2, duplicatedRows: 0, invalidRows: 0, Encoding: null });
    expect(r.seen.some((n) => n.startsWith('memory-'))).toBe(true);
    expect(readdirSync(join(t.dataDir, 'uploads'))).toEqual([]);
  });
});
