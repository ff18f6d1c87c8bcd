import XLSX from 'xlsx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// docs/cati-api.md#blacklist-imports: POST /cati/blacklist/imports, the job, all-or-nothing, one audit row.
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ phoneRegion: 'NL' });
  expect((await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '020 555 0100' } })).status).toBe(201);
});
afterAll(() => t.close());

function form(content: BlobPart, name: string, fields: Record<string, string> = {}): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  fd.append('file', new Blob([content]), name);
  return fd;
}

async function waitDone(path: string): Promise<any> {
  for (let i = 0; i < 600; i++) {
    const r = await t.json('GET', path);
    expect(r.status).toBe(200);
    if (r.body.State !== 'running') return r.body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('import did not finish');
}

async function importFile(content: BlobPart, name: string, fields: Record<string, string> = {}) {
  const r = await t.json('POST', '/cati/blacklist/imports', { raw: form(content, name, fields) });
  if (r.status !== 202) return { status: r.status, body: r.body, job: undefined };
  const path = new URL(r.headers.get('location')!).pathname;
  return { status: r.status, body: r.body, path, job: await waitDone(path) };
}

const count = async () => (await t.json('GET', '/cati/blacklist?$count=true&$top=0')).body['@odata.count'] as number;
const check = async (n: string) => (await t.json('GET', `/cati/blacklist/Controller.Check(telephoneNumber='${encodeURIComponent(n)}')`)).body.value as boolean;

describe('POST /cati/blacklist/imports', () => {
  it('answers 202 with Location; the job stores the numbers normalised for the region, counts and reports invalid rows', async () => {
    const csv = 'Telefon;Type;Comment\r\n+31 (0)20 555-0198;;"asked; twice"\r\n0031 20 555 0198;;\r\n0900;StartWith;\r\n020 555 0100;;\r\nabc;;\r\n06 1234 5678;Sometimes;\r\n\'+31 30 296 9173;Equal;guarded\r\n';
    const before = await count();
    const { status, body, job, path } = await importFile(csv, 'dnc.csv');
    expect(status).toBe(202);
    expect(body).toMatchObject({ State: 'running', FileName: 'dnc.csv', Rows: 7 });
    expect(path).toMatch(/^\/cati\/blacklist\/imports\('[\w-]+'\)$/);
    expect(job).toMatchObject({ State: 'done', FileName: 'dnc.csv', Encoding: 'utf-8', Rows: 7, Processed: 7, Added: 3, Duplicates: 2, Invalid: 2, Error: null });
    expect(Object.keys(job).sort()).toEqual(['Added', 'Duplicates', 'Encoding', 'Error', 'FileName', 'Id', 'Invalid', 'InvalidRows', 'Processed', 'Rows', 'State'].sort());
    expect(job.InvalidRows).toEqual([
      { Row: 5, Value: 'abc', Message: expect.stringMatching(/may contain only digits/) },
      { Row: 6, Value: '06 1234 5678', Message: "Type must be Equal or StartWith, not 'Sometimes'" },
    ]);
    expect(await count()).toBe(before + 3);
    expect(await check('020 555 0198')).toBe(true);
    expect(await check('0900 1234567')).toBe(true);
    expect(await check('030 296 9173')).toBe(true);
    const items = (await t.json('GET', `/cati/blacklist?$filter=${encodeURIComponent("TelephoneNumber eq '31205550198'")}`)).body.value;
    expect(items).toMatchObject([{ Type: 'Equal', Comment: 'asked; twice' }]);
    const audit = (await t.json('GET', '/admin/audit?entity=blacklist&$top=1')).body.value[0];
    expect(audit).toMatchObject({ Action: 'imported', Entity: 'blacklist' });
    expect(JSON.parse(JSON.stringify(audit.Changes))).toMatchObject({ FileName: 'dnc.csv', Rows: 7, Added: 3, Duplicates: 2, Invalid: 2 });
  });

  it('reads a workbook: number cells as Excel holds them, type=StartWith for rows without their own, the sheet named', async () => {
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['x'], ['y']]), 'Other');
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['Number', 'Comment'], [31851234567, 'from excel'], ['0591', 'prefix']]), 'DNC');
    const bytes = new Uint8Array(XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer);
    const { job } = await importFile(bytes, 'dnc.xlsx', { sheet: 'DNC', type: 'StartWith' });
    expect(job).toMatchObject({ State: 'done', Encoding: null, Rows: 2, Added: 2, Invalid: 0 });
    expect(await check('+31 85 123 4567 89')).toBe(true);
    expect(await check('0591 123456')).toBe(true);
  });

  it('a number cell that lost its leading 0 in Excel (0612345678 held as 612345678) is stored as a national number of the region', async () => {
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['Number'], [612345679], [302969174]]), 'DNC');
    const { job } = await importFile(new Uint8Array(XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer), 'lost-zero.xlsx');
    expect(job).toMatchObject({ State: 'done', Rows: 2, Added: 2, Invalid: 0 });
    const stored = (await t.json('GET', `/cati/blacklist?$filter=${encodeURIComponent("TelephoneNumber in ('31612345679', '31302969174')")}&$orderby=TelephoneNumber`)).body.value;
    expect(stored.map((b: { TelephoneNumber: string }) => b.TelephoneNumber)).toEqual(['31302969174', '31612345679']);
    expect(await check('06 1234 5679')).toBe(true);
  });

  it('bad files and fields → 400 with the reason, nothing stored, never a 5xx', async () => {
    const before = await count();
    const cases: [BlobPart, string, Record<string, string>, RegExp][] = [
      ['', 'empty.csv', {}, /empty/],
      ['Number\r\n', 'header.csv', {}, /no data rows/],
      ['Number;Comment\r\n\r\n\r\n', 'header.txt', {}, /no data rows/],
      ['this is not a zip', 'garbage.xlsx', {}, /not an Excel workbook/],
      ['Number\r\n0612345678\r\n', 'x.csv', { type: 'Prefix' }, /type must be Equal or StartWith/],
      ['Number\r\n0612345678\r\n', 'x.csv', { column: 'Phone' }, /No column named 'Phone'/],
      ['Number\r\n0612345678\r\n', 'x.pdf', {}, /\.csv, \.tsv, \.txt or \.xlsx/],
    ];
    for (const [content, name, fields, message] of cases) {
      const r = await t.json('POST', '/cati/blacklist/imports', { raw: form(content, name, fields) });
      expect(r.status, name).toBe(400);
      expect(r.body.error.message, name).toMatch(message);
    }
    expect((await t.json('POST', '/cati/blacklist/imports', { raw: new FormData() })).status).toBe(400);
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['Number'], ['0612345678']]), 'S');
    const unknownSheet = await t.json('POST', '/cati/blacklist/imports', { raw: form(new Uint8Array(XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer), 'w.xlsx', { sheet: 'Nope' }) });
    expect(unknownSheet.status).toBe(400);
    expect(await count()).toBe(before);
  }, 90_000); // nine uploads, each read by a worker thread of its own

  it('needs cati_administrate; an unknown job is 404', async () => {
    const created = await t.json('POST', '/admin/keys', { body: { name: 'reader', permissions: ['cati_read'] } });
    expect(created.status).toBe(201);
    const r = await t.json('POST', '/cati/blacklist/imports', { raw: form('Number\r\n0612345678\r\n', 'x.csv'), key: created.body.key });
    expect(r.status).toBe(403);
    expect((await t.json('GET', "/cati/blacklist/imports('nope')")).status).toBe(404);
  });
});
