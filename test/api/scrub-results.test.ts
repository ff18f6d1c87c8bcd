import XLSX from 'xlsx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// docs/cati-api.md#scrubs: the sample given back as it came; dedupe and annotate.
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ phoneRegion: 'NL' });
  const r = await t.json('POST', '/cati/blacklist/Controller.Import', { body: { BlackListItems: ['020 555 0198', { TelephoneNumber: '0900', Type: 'StartWith' }] } });
  expect(r.body.Added).toBe(2);
});
afterAll(() => t.close());

function form(content: BlobPart, name: string, fields: Record<string, string> = {}): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  fd.append('file', new Blob([content]), name);
  return fd;
}

async function waitDone(server: TestServer, path: string): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const r = await server.json('GET', path);
    if (r.body?.State !== 'running') return r.body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('scrub did not finish');
}

async function scrub(base: string, content: BlobPart, name: string, fields: Record<string, string> = {}) {
  const r = await t.json('POST', base, { raw: form(content, name, fields) });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  const path = new URL(r.headers.get('location')!).pathname;
  return { job: await waitDone(t, path), path };
}

async function text(path: string): Promise<string[]> {
  const res = await t.request('GET', path);
  expect(res.status).toBe(200);
  return new TextDecoder().decode(new Uint8Array(await res.arrayBuffer()).subarray(3)).split('\r\n');
}

async function sheet(path: string): Promise<XLSX.WorkSheet> {
  const res = await t.request('GET', `${path}?$format=xlsx`);
  expect(res.status).toBe(200);
  const book = XLSX.read(new Uint8Array(await res.arrayBuffer()), { type: 'array' });
  return book.Sheets[book.SheetNames[0]!]!;
}

describe('scrub results give the sample back as it came', () => {
  it("the sample's own cells are written exactly as uploaded in /kept and /removed, only added cells guarded", async () => {
    const list = "Phone,Note\r\n+31 30 296 9173,=SUM(A1)\r\n'+31 30 296 9174,-x\r\n020 555 0198,@me\r\n+abc,+1\r\n";
    const { job, path } = await scrub('/cati/scrubs', list, 'sample.csv');
    expect(job).toMatchObject({ State: 'done', Rows: 4, Kept: 2, Removed: 1, Invalid: 1, Duplicates: 0 });
    expect(await text(`${path}/kept`)).toEqual(['Phone,Note', '+31 30 296 9173,=SUM(A1)', "'+31 30 296 9174,-x", '']);
    const removed = await text(`${path}/removed`);
    expect(removed[0]).toBe('Phone,Note,Reason,MatchedId,MatchedNumber,MatchType,Normalized');
    expect(removed[1]).toMatch(/^020 555 0198,@me,blacklist,\d+,31205550198,Equal,31205550198$/);
    expect(removed[2]).toBe('+abc,+1,invalid,,,,');
  });

  it('an added cell that starts like a formula is guarded (opt-out scrub: the normalised address)', async () => {
    await t.json('POST', '/optout/lists', { body: {} });
    const { job, path } = await scrub('/optout/scrubs', 'Email\r\n-x@example.org\r\n=y@example.org\r\n', 'mails.csv', { dedupe: 'true' });
    expect(job).toMatchObject({ Rows: 2, Kept: 2, Invalid: 0 });
    expect(await text(`${path}/kept`)).toEqual(['Email', '-x@example.org', '=y@example.org', '']);
    const dup = await scrub('/optout/scrubs', 'Email\r\n-x@example.org\r\n-X@Example.org \r\n', 'mails.csv', { dedupe: 'true' });
    expect(dup.job).toMatchObject({ Rows: 2, Kept: 1, Removed: 1, Duplicates: 1 });
    const removed = await text(`${dup.path}/removed`);
    expect(removed[0]).toBe('Email,Reason,MatchedId,MatchedList,MatchedRow,Normalized');
    expect(removed[1]).toBe("-X@Example.org ,duplicate,,,1,'-x@example.org");
  });

  it('$format=xlsx writes the sample cells as text: a leading 0 or + stays', async () => {
    const { path } = await scrub('/cati/scrubs', 'Phone,Id\r\n0612345678,007\r\n+31 30 296 9173,1e3\r\n', 'text.csv');
    const ws = await sheet(`${path}/kept`);
    expect(ws['A2']).toMatchObject({ t: 's', v: '0612345678' });
    expect(ws['B2']).toMatchObject({ t: 's', v: '007' });
    expect(ws['A3']).toMatchObject({ t: 's', v: '+31 30 296 9173' });
    expect(ws['B3']).toMatchObject({ t: 's', v: '1e3' });
  });
});

describe('scrub options', () => {
  it('dedupe=true removes a repeat after its first row as duplicate with MatchedRow; a blacklisted repeat stays blacklist', async () => {
    const list = 'Phone\r\n030 296 9173\r\n+31 30 2969173\r\n020 555 0198\r\n020 555 0198\r\n0031302969173\r\n06 1234 5678\r\n';
    const { job, path } = await scrub('/cati/scrubs', list, 'dupes.csv', { dedupe: 'true' });
    expect(job).toMatchObject({ Rows: 6, Kept: 2, Removed: 4, Invalid: 0, Duplicates: 2 });
    expect(await text(`${path}/kept`)).toEqual(['Phone', '030 296 9173', '06 1234 5678', '']);
    const removed = await text(`${path}/removed`);
    expect(removed[0]).toBe('Phone,Reason,MatchedId,MatchedNumber,MatchType,MatchedRow,Normalized');
    expect(removed[1]).toBe('+31 30 2969173,duplicate,,,,1,31302969173');
    expect(removed[2]).toMatch(/^020 555 0198,blacklist,\d+,31205550198,Equal,,31205550198$/);
    expect(removed[3]).toMatch(/^020 555 0198,blacklist,\d+,31205550198,Equal,,31205550198$/);
    expect(removed[4]).toBe('0031302969173,duplicate,,,,1,31302969173');
    const off = await scrub('/cati/scrubs', list, 'dupes.csv');
    expect(off.job).toMatchObject({ Kept: 4, Removed: 2, Duplicates: 0 });
  });

  it('annotate=true adds Normalized, LineType and Region to /kept and /removed', async () => {
    const list = 'Name,Phone\r\nAnn,06 1234 5678\r\nBob,030 296 9173\r\nCid,0800 123 4567\r\nDee,+1 212 555 0198\r\nEve,0900 123 4567\r\nFay,12\r\nGus\r\n';
    const { job, path } = await scrub('/cati/scrubs', list, 'types.csv', { annotate: 'true' });
    expect(job).toMatchObject({ Rows: 7, Kept: 5, Removed: 1, Invalid: 1 });
    expect(await text(`${path}/kept`)).toEqual([
      'Name,Phone,Normalized,LineType,Region',
      'Ann,06 1234 5678,31612345678,mobile,NL',
      'Bob,030 296 9173,31302969173,fixed,NL',
      'Cid,0800 123 4567,318001234567,toll_free,NL',
      'Dee,+1 212 555 0198,12125550198,fixed_or_mobile,US',
      'Fay,12,12,,',
      '',
    ]);
    const removed = await text(`${path}/removed`);
    expect(removed[0]).toBe('Name,Phone,Reason,MatchedId,MatchedNumber,MatchType,Normalized,LineType,Region');
    expect(removed[1]).toMatch(/^Eve,0900 123 4567,blacklist,\d+,31900,StartWith,319001234567,premium_rate,NL$/);
    expect(removed[2]).toBe('Gus,,invalid,,,,,,');
  });

  it('a number cell that lost its leading 0 in Excel (0612345678 held as 612345678) is a national number of the region', async () => {
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['Name', 'Phone'], ['Ann', 612345678], ['Bob', 205550198], ['Cid', 31302969173]]), 'Sample');
    const bytes = new Uint8Array(XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer);
    const { job, path } = await scrub('/cati/scrubs', bytes, 'sample.xlsx', { annotate: 'true' });
    expect(job).toMatchObject({ State: 'done', Rows: 3, Kept: 2, Removed: 1, Invalid: 0 });
    expect(await text(`${path}/kept`)).toEqual(['Name,Phone,Normalized,LineType,Region', 'Ann,612345678,31612345678,mobile,NL', 'Cid,31302969173,31302969173,fixed,NL', '']);
    expect((await text(`${path}/removed`))[1]).toMatch(/^Bob,205550198,blacklist,\d+,31205550198,Equal,31205550198,fixed,NL$/);
  });

  it('a value other than true/false → 400', async () => {
    for (const field of ['dedupe', 'annotate']) {
      const r = await t.json('POST', '/cati/scrubs', { raw: form('Phone\n0612345678\n', 'x.csv', { [field]: 'yes' }) });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(new RegExp(`${field} must be 'true' or 'false'`));
    }
  });
});
