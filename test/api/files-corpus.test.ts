import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// docs/files.md: every path that takes a file (the opt-out import, the CATI and the opt-out scrubs) reads the
// corpus of test/fixtures/files/ by the same rules: encodings, the delimiter rule, RFC 4180 quoting, XLSX cells
// and `sheet`, and bad files refused whole.
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'files');
const fixture = (name: string) => new Uint8Array(readFileSync(join(FIXTURES, name)));

let t: TestServer;
let seq = 4000;
beforeAll(async () => {
  t = await startTestServer();
  const r = await t.json('POST', '/cati/blacklist/Controller.Import', { body: { BlackListItems: ['020 555 0198'] } });
  expect(r.body.Added).toBe(1);
});
afterAll(() => t.close());

function form(name: string, fields: Record<string, string> = {}): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  fd.append('file', new Blob([fixture(name)]), name);
  return fd;
}

async function freshList(): Promise<number> {
  return (await t.json('POST', '/optout/lists', { body: { projectId: `p${seq++}` } })).body.id;
}

async function stored(list: number): Promise<string[]> {
  const r = await t.json('GET', `/optout/lists/${list}/emails?$pageSize=1000&$orderBy=EmailAddress`);
  return r.body.items.map((i: { emailAddress: string }) => i.emailAddress);
}

async function importInto(list: number, name: string, fields: Record<string, string> = {}) {
  return t.json('POST', `/optout/lists/${list}/emails/import`, { raw: form(name, fields) });
}

/** Starts a scrub (`cati` or `optout`) and waits for its end; a refused request comes back as it is. */
async function scrub(kind: 'cati' | 'optout', name: string, fields: Record<string, string> = {}) {
  const r = await t.json('POST', kind === 'cati' ? '/cati/scrubs' : '/optout/scrubs', { raw: form(name, fields) });
  if (r.status !== 202) return { status: r.status, body: r.body, job: undefined, path: '' };
  const path = new URL(r.headers.get('location')!).pathname;
  for (let i = 0; i < 300; i++) {
    const job = (await t.json('GET', path)).body;
    if (job.State !== 'running') return { status: r.status, body: r.body, job, path };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('scrub did not finish');
}

async function csv(path: string): Promise<string> {
  const res = await t.request('GET', path);
  expect(res.status).toBe(200);
  return (await res.text()).replace(/^\uFEFF/, '');
}

describe('Excel-for-Windows CSV (Windows-1252, `;`)', () => {
  it('the opt-out import reads it and names the encoding', async () => {
    const list = await freshList();
    const r = await importInto(list, 'excel-windows-1252.csv');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ newRows: 2, duplicatedRows: 0, invalidRows: 0, Encoding: 'windows-1252' });
    expect(await stored(list)).toEqual(['juergen@example.de', 'mueller@example.de']);
  });

  it('the CATI scrub gives the rows back with their umlauts', async () => {
    const { job, path } = await scrub('cati', 'excel-windows-1252.csv');
    expect(job).toMatchObject({ State: 'done', Encoding: 'windows-1252', Rows: 2, Kept: 1, Removed: 1, Invalid: 0 });
    expect(await csv(`${path}/kept`)).toBe('Name,Telefon,Email,Betrag\r\nMüller,0612345678,mueller@example.de,5 €\r\n');
    expect((await csv(`${path}/removed`)).split('\r\n')[1]).toMatch(/^Jürgen Größe,020 555 0198,juergen@example.de,"12,50 €",blacklist,/);
  });

  it('the opt-out scrub reads the same file', async () => {
    const { job } = await scrub('optout', 'excel-windows-1252.csv');
    expect(job).toMatchObject({ State: 'done', Encoding: 'windows-1252', Rows: 2, Kept: 2 });
  });
});

describe('a `;` export with quoted commas and line breaks (UTF-8 with BOM)', () => {
  it('the opt-out import finds the Email column of the `;` header', async () => {
    const list = await freshList();
    const r = await importInto(list, 'semicolon-quoted.csv');
    expect(r.body).toEqual({ newRows: 2, duplicatedRows: 0, invalidRows: 0, Encoding: 'utf-8' });
    expect(await stored(list)).toEqual(['jane@example.org', 'john@example.org']);
  });

  it('the CATI scrub takes `Telefon, mobil, privat` as one column and keeps the cells whole', async () => {
    const { job, path } = await scrub('cati', 'semicolon-quoted.csv');
    expect(job).toMatchObject({ State: 'done', Encoding: 'utf-8', Rows: 2, Kept: 1, Removed: 1, Invalid: 0 });
    const kept = await csv(`${path}/kept`);
    expect(kept).toMatch(/^"Name, Vorname",Email,"Telefon, mobil, privat","Notiz\r\n\(intern\)"\r\n"Roe, Jane",jane@example.org,'?\+31 30 296 9173,"sagt ""hallo"""\r\n$/);
    const removed = await csv(`${path}/removed`);
    expect(removed).toContain('"Doe, John",john@example.org,020 555 0198,"erste Zeile\r\nzweite Zeile",blacklist,');
  });

  it('the opt-out scrub reads the same columns', async () => {
    const { job } = await scrub('optout', 'semicolon-quoted.csv');
    expect(job).toMatchObject({ State: 'done', Rows: 2, Kept: 2, Invalid: 0 });
  });
});

describe('a workbook with number, date, formula and text cells and two sheets', () => {
  it('the CATI scrub reads numbers as Excel holds them, dates as ISO dates, formulas as their values', async () => {
    const { job, path } = await scrub('cati', 'workbook.xlsx');
    expect(job).toMatchObject({ State: 'done', Encoding: null, Rows: 2, Kept: 2, Invalid: 0 });
    const kept = (await csv(`${path}/kept`)).split('\r\n');
    expect(kept[0]).toBe('Name,Phone,Since,Total,Note');
    expect(kept[1]).toBe('Ann,4917012345678,2026-11-28,5,0612345678');
    expect(kept[2]).toMatch(/^Bob,31612345678,2026-11-28T13:45:10,0\.0000001,'?\+31 30 296 9173$/);
  });

  it('the `sheet` field picks a sheet by name or number; an unknown one → 400 naming the sheets', async () => {
    for (const sheet of ['Emails', 'emails', '2']) {
      const { job } = await scrub('optout', 'workbook.xlsx', { sheet });
      expect(job, sheet).toMatchObject({ State: 'done', Rows: 2, Kept: 2, Invalid: 0 });
    }
    const cati = await scrub('cati', 'workbook.xlsx', { sheet: 'Nope' });
    expect(cati.status).toBe(400);
    expect(cati.body.error.message).toMatch(/no sheet 'Nope'.*'Numbers', 'Emails'/);
    const optout = await scrub('optout', 'workbook.xlsx', { sheet: '3' });
    expect(optout.status).toBe(400);
    expect(optout.body.message).toMatch(/'Numbers', 'Emails'/);
  });

  it('the opt-out import reads the sheet named, or refuses an unknown one and stores nothing', async () => {
    const list = await freshList();
    const r = await importInto(list, 'workbook.xlsx', { sheet: 'Emails' });
    expect(r.body).toEqual({ newRows: 2, duplicatedRows: 0, invalidRows: 0, Encoding: null });
    expect(await stored(list)).toEqual(['first@example.org', 'second@example.org']);
    const other = await freshList();
    const bad = await importInto(other, 'workbook.xlsx', { sheet: 'Kunden' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/no sheet 'Kunden'/);
    expect(await stored(other)).toEqual([]);
  });
});

describe('UTF-16 LE with BOM (Excel "Unicode Text", tabs)', () => {
  it('the opt-out import reads it', async () => {
    const list = await freshList();
    const r = await importInto(list, 'utf16le-bom.txt');
    expect(r.body).toEqual({ newRows: 2, duplicatedRows: 0, invalidRows: 0, Encoding: 'utf-16le' });
  });

  it('both scrubs read it', async () => {
    const cati = await scrub('cati', 'utf16le-bom.txt');
    expect(cati.job).toMatchObject({ State: 'done', Encoding: 'utf-16le', Rows: 2, Kept: 1, Removed: 1 });
    expect(await csv(`${cati.path}/kept`)).toBe('Email,Name,Phone\r\nanna@example.org,Åsa Öberg,0301234567\r\n');
    const optout = await scrub('optout', 'utf16le-bom.txt');
    expect(optout.job).toMatchObject({ State: 'done', Encoding: 'utf-16le', Rows: 2, Kept: 2 });
  });
});

describe('bad files: a clear 400, never a 5xx, never a partial import', () => {
  it.each([
    ['empty.csv', /empty/],
    ['header-only.csv', /header but no data rows/],
    ['garbage.xlsx', /cannot be read/],
  ])('%s', async (name, message) => {
    const list = await freshList();
    const imported = await importInto(list, name);
    expect(imported.status).toBe(400);
    expect(imported.body.message).toMatch(message);
    expect(await stored(list)).toEqual([]);
    const cati = await scrub('cati', name);
    expect(cati.status).toBe(400);
    expect(cati.body.error.message).toMatch(message);
    const optout = await scrub('optout', name);
    expect(optout.status).toBe(400);
    expect(optout.body.message).toMatch(message);
  });
});
