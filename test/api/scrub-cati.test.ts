import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import XLSX from 'xlsx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// docs/cati-api.md#scrubs: POST /cati/scrubs, the job, its kept and removed files.
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  const r = await t.json('POST', '/cati/blacklist/Controller.Import', {
    body: { BlackListItems: ['020 555 0198', { TelephoneNumber: '0900', Type: 'StartWith' }, { TelephoneNumber: '0900 12', Type: 'StartWith' }] },
  });
  expect(r.body.Added).toBe(3);
});
afterAll(() => t.close());

function form(content: BlobPart, name: string, fields: Record<string, string> = {}): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  fd.append('file', new Blob([content]), name);
  return fd;
}

export async function waitDone(server: TestServer, path: string, key?: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const r = await server.json('GET', path, key ? { key } : {});
    if (r.body?.State !== 'running') return r.body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('scrub did not finish');
}

async function scrub(content: BlobPart, name: string, fields: Record<string, string> = {}) {
  const r = await t.json('POST', '/cati/scrubs', { raw: form(content, name, fields) });
  if (r.status !== 202) return { status: r.status, body: r.body, job: undefined };
  const location = r.headers.get('location')!;
  const job = await waitDone(t, new URL(location).pathname);
  return { status: r.status, body: r.body, job, path: new URL(location).pathname };
}

async function csv(path: string): Promise<string> {
  const res = await t.request('GET', path);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/text\/csv/);
  const bytes = new Uint8Array(await res.arrayBuffer());
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  return new TextDecoder().decode(bytes.subarray(3));
}

const LIST = 'Name,Phone,City\r\nAnn,020 555 0198,Amsterdam\r\nBob,0900 3456,Utrecht\r\nCid,0900 1299,Delft\r\nDee,=1+2,Haarlem\r\nEve,030 123 4567,Leiden\r\n\r\n';

describe('POST /cati/scrubs', () => {
  it('answers 202 with the job and Location; the job ends done with Kept + Removed + Invalid = Rows', async () => {
    const { status, body, job, path } = await scrub(LIST, 'list.csv');
    expect(status).toBe(202);
    expect(body).toMatchObject({ State: 'running', FileName: 'list.csv' });
    expect(Object.keys(job).sort()).toEqual(['CreatedAt', 'Duplicates', 'Encoding', 'Error', 'FileName', 'FinishedAt', 'Id', 'Invalid', 'Kept', 'Processed', 'Removed', 'Rows', 'State'].sort());
    expect(job).toMatchObject({ State: 'done', Rows: 5, Processed: 5, Kept: 1, Removed: 3, Invalid: 1, Error: null });
    expect(path).toBe(`/cati/scrubs('${job.Id}')`);
    expect(await csv(`${path}/kept`)).toBe('Name,Phone,City\r\nEve,030 123 4567,Leiden\r\n');
    const removed = (await csv(`${path}/removed`)).split('\r\n');
    expect(removed[0]).toBe('Name,Phone,City,Reason,MatchedId,MatchedNumber,MatchType,Normalized');
    expect(removed[1]).toMatch(/^Ann,020 555 0198,Amsterdam,blacklist,\d+,0205550198,Equal,0205550198$/);
    expect(removed[2]).toMatch(/^Bob,0900 3456,Utrecht,blacklist,\d+,0900,StartWith,09003456$/);
    expect(removed[3]).toMatch(/^Cid,0900 1299,Delft,blacklist,\d+,090012,StartWith,09001299$/); // the longest prefix
    expect(removed[4]).toBe('Dee,=1+2,Haarlem,invalid,,,,'); // the sample's own cell as uploaded, no guard
  });

  it('reads TSV, TXT (semicolons) and XLSX; the column by name or number; header detection', async () => {
    const tsv = await scrub('020 555 0198\tx\n030 1\ty\n', 'list.tsv');
    expect(tsv.job).toMatchObject({ Rows: 2, Kept: 1, Removed: 1 }); // no header: the first cell has a digit
    const txt = await scrub('id;tel\n1;0900 55\n2;0301\n', 'list.txt');
    expect(txt.job).toMatchObject({ Rows: 2, Kept: 1, Removed: 1 }); // the column whose header contains tel
    const byNumber = await scrub('a,b\nx,0205550198\n', 'n.csv', { column: '2' });
    expect(byNumber.job).toMatchObject({ Rows: 1, Removed: 1 });
    const byName = await scrub('a,Mobile\nx,0205550198\n', 'n.csv', { column: 'mobile' });
    expect(byName.job).toMatchObject({ Rows: 1, Removed: 1 });
    const noHeader = await scrub('phone\n0205550198\n', 'n.csv', { header: 'false' });
    expect(noHeader.job).toMatchObject({ Rows: 2, Removed: 1, Invalid: 1 });
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['Number', 'Who'], ['0900 777', 'a'], ['040 1234', 'b']]), 'S');
    const xlsx = await scrub(new Uint8Array(XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer), 'list.xlsx');
    expect(xlsx.job).toMatchObject({ Rows: 2, Kept: 1, Removed: 1 });
    const res = await t.request('GET', `${xlsx.path}/kept?$format=xlsx`);
    expect(res.headers.get('content-type')).toMatch(/spreadsheetml/);
    const book = XLSX.read(new Uint8Array(await res.arrayBuffer()), { type: 'array' });
    expect(XLSX.utils.sheet_to_json(book.Sheets[book.SheetNames[0]!]!, { header: 1 })).toEqual([['Number', 'Who'], ['040 1234', 'b']]);
  });

  it('bad input → 400 with a clear message, nothing left on disk, and the server keeps answering', async () => {
    const cases: [BlobPart, string, Record<string, string>, RegExp][] = [
      ['a,b\n1,2\n', 'x.csv', { column: 'phone' }, /No column named 'phone'/],
      ['a,b\n1,2\n', 'x.csv', { column: '3' }, /No column 3/],
      ['', 'x.csv', {}, /empty/],
      ['\n\n \n', 'x.csv', {}, /empty/],
      ['just text', 'x.xlsx', {}, /not an Excel workbook/],
      [new Uint8Array([0x50, 0x4b, 3, 4, 0, 0]), 'x.csv', {}, /zip/],
      ['a', 'x.pdf', {}, /\.csv, \.tsv, \.txt or \.xlsx/],
      ['a\n1\n', 'x.csv', { header: 'maybe' }, /header must be/],
    ];
    for (const [content, name, fields, message] of cases) {
      const r = await t.json('POST', '/cati/scrubs', { raw: form(content, name, fields) });
      expect(r.status, name).toBe(400);
      expect(r.body.error.message).toMatch(message);
    }
    expect((await t.json('POST', '/cati/scrubs', { raw: new FormData() })).status).toBe(400);
    expect(readdirSync(join(t.dataDir, 'scrubs')).filter((d) => !existsSync(join(t.dataDir, 'scrubs', d, 'kept.jsonl')))).toEqual([]);
    expect(readdirSync(join(t.dataDir, 'uploads'))).toEqual([]);
    expect((await t.json('GET', '/healthz')).status).toBe(200);
  });

  it('DELETE removes the job and its files; the scrubs dir is 0700', async () => {
    const { job, path } = await scrub(LIST, 'gone.csv');
    const dir = join(t.dataDir, 'scrubs', job.Id);
    expect(existsSync(join(dir, 'removed.jsonl'))).toBe(true);
    expect(statSync(join(t.dataDir, 'scrubs')).mode & 0o777).toBe(0o700);
    expect((await t.request('DELETE', path!)).status).toBe(204);
    expect(existsSync(dir)).toBe(false);
    expect((await t.json('GET', path!)).status).toBe(404);
  });
});
