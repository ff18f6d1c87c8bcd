/**
 * Hostile uploads (docs/optout-api.md#limits): zip bombs disguised as .xlsx are refused with a 4xx before anything is
 * inflated, while this process's RSS (the in-process server and its import workers) stays bounded; uploads land in
 * the data dir's 0700 uploads dir, which every start empties.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { overlappingBomb, peakRss, singleEntryBomb } from '../helpers/zip-bombs.ts';

/** Growth of RSS a refused bomb may cause (worker start-up included); the bombs themselves expand to ≥ 100 MB. */
const MAX_GROWTH_MB = 200;

let t: TestServer;
let listId: number;
beforeAll(async () => {
  t = await startTestServer();
  listId = (await t.json('POST', '/optout/lists', { body: { projectId: 'p7001' } })).body.id;
});
afterAll(() => t.close());

function upload(content: Uint8Array, name = 'bomb.xlsx') {
  const fd = new FormData();
  fd.append('file', new Blob([content as BlobPart]), name);
  return t.json('POST', `/optout/lists/${listId}/emails/import`, { raw: fd });
}

const stored = async () => (await t.json('GET', `/optout/lists/${listId}/emails`)).body.totalCount as number;

describe('zip bombs as .xlsx', () => {
  it.each([
    ['64 overlapping entries of 16 MiB (1 GiB declared)', () => overlappingBomb(64, 16), 400, /compressed more than 200:1/],
    ['300 overlapping entries of 1 MiB (300 MiB declared)', () => overlappingBomb(300, 1), 413, /expands to more than 256 MB/],
    ['3 overlapping entries of 1 MiB (within the size limit)', () => overlappingBomb(3, 1), 400, /overlap/],
    ['one entry of 300 MiB (honest sizes)', () => singleEntryBomb(300), 413, /expands to more than/],
    ['one entry of 100 MiB at a ratio near 1000:1', () => singleEntryBomb(100), 400, /compressed more than 200:1/],
    ['one entry of 100 MiB that declares 1 MiB', () => singleEntryBomb(100, 1), 400, /inflates to more than its declared/],
  ])('%s → 4xx, nothing stored, memory bounded', async (label, make, status, message) => {
    const bomb = await make();
    const { result, baseMb, peakMb } = await peakRss(() => upload(bomb));
    console.log(`zip bomb "${label}" (${(bomb.length / 1024).toFixed(1)} KB): ${result.status}; RSS ${baseMb.toFixed(0)} → peak ${peakMb.toFixed(0)} MB (+${(peakMb - baseMb).toFixed(0)} MB)`);
    expect(result.status).toBe(status);
    expect(result.body.message).toMatch(message);
    expect(peakMb - baseMb).toBeLessThan(MAX_GROWTH_MB);
    expect(await stored()).toBe(0);
  }, 60_000);
});

describe('the upload dir', () => {
  it('is <data-dir>/uploads, mode 0700, emptied at start, and left empty after an import', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cati-uploads-'));
    const uploads = join(dataDir, 'uploads');
    mkdirSync(uploads, { mode: 0o755 });
    writeFileSync(join(uploads, 'left-by-a-crash'), 'a@x.com\n');
    const s = await startTestServer({ dataDir });
    try {
      expect(readdirSync(uploads)).toEqual([]);
      expect(statSync(uploads).mode & 0o777).toBe(0o700);
      const list = (await s.json('POST', '/optout/lists', { body: { projectId: 'p7002' } })).body.id;
      // A slow upload: the first half is sent, the file must appear in the uploads dir (not in the OS temp dir).
      let finish!: () => void;
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          const enc = new TextEncoder();
          controller.enqueue(enc.encode('--b\r\nContent-Disposition: form-data; name="file"; filename="x.csv"\r\n\r\na@x.com\n'));
          await new Promise<void>((resolve) => (finish = resolve));
          controller.enqueue(enc.encode('b@x.com\n\r\n--b--\r\n'));
          controller.close();
        },
      });
      const answer = fetch(`${s.url}/optout/lists/${list}/emails/import`, {
        method: 'POST',
        body,
        headers: { authorization: 'Bearer test-key-0123456789abcdef', 'content-type': 'multipart/form-data; boundary=b' },
        duplex: 'half',
      } as RequestInit);
      for (const deadline = Date.now() + 10_000; readdirSync(uploads).length === 0 && Date.now() < deadline; ) {
        await new Promise((r) => setImmediate(r));
      }
      expect(readdirSync(uploads)).toHaveLength(1);
      finish();
      const r = await answer;
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({ newRows: 2, duplicatedRows: 0, invalidRows: 0, Encoding: 'utf-8' });
      expect(readdirSync(uploads)).toEqual([]);
    } finally {
      await s.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a malformed multipart body → 400 (mapped without reading error texts)', async () => {
    const r = await t.request('POST', `/optout/lists/${listId}/emails/import`, {
      raw: '--b\r\nContent-Disposition: form-data; name="file"; filename="x.csv"\r\n\r\na@x.com',
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
    });
    expect(r.status).toBe(400);
    expect((await r.json()).message).toMatch(/Malformed multipart body/);
  });
});
