/**
 * Exports of collection queries (docs/cati-api.md#apply, docs/limits.md#limits): CSV and XLSX contents (XLSX parsed back with the
 * `xlsx` package), $select order, $apply results, /callhistorywithvariables with its variables as columns,
 * Basic credentials, the formula guard, the row limit (400 before any byte), and a client that goes away
 * mid-export leaving the server healthy.
 */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as XLSX from 'xlsx';
import { TEST_API_KEY, startTestServer, type TestServer } from '../helpers/server.ts';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const basic = `Basic ${Buffer.from(`excel:${TEST_API_KEY}`).toString('base64')}`;

let t: TestServer;

async function csvOf(path: string, headers: Record<string, string> = {}) {
  const res = await t.request('GET', path, { headers });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { res, bytes, rows: parse(bytes.toString('utf8'), { bom: true }) as string[][] };
}

async function xlsxOf(path: string, headers: Record<string, string> = {}) {
  const res = await t.request('GET', path, { headers });
  const wb = XLSX.read(Buffer.from(await res.arrayBuffer()), { cellDates: true });
  return { res, wb, rows: XLSX.utils.sheet_to_json<unknown[]>(wb.Sheets[wb.SheetNames[0]!]!, { header: 1, defval: null }) };
}

const q = (s: string) => encodeURIComponent(s);
/** The body as UTF-8 text, BOM kept (Response.text() drops it). */
const bytesOf = async (res: Response) => Buffer.from(await res.arrayBuffer()).toString('utf8');

beforeAll(async () => {
  t = await startTestServer();
  const integrate = (await t.server.ctx.keys.create('dialer', ['cati_integrate'])).key;
  await t.json('POST', '/cati/surveys', { body: { SurveyId: 'p1', SurveyName: 'One', State: 'Open', Variables: [{ Name: 'Region', AvailableAsCatiFilter: true }, { Name: 'Hidden', AvailableAsCatiFilter: false }] } });
  await t.json('POST', '/cati/surveys', { body: { SurveyId: 'p2', SurveyName: 'Two', State: 'Open', Variables: [{ Name: 'Age', AvailableAsCatiFilter: true }] } });
  const anna = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'anna', DisplayName: '=HYPERLINK("http://x")', Description: 'line 1\nline "2", more' } })).body.InterviewerId;
  const value = Array.from({ length: 40 }, (_, i) => ({
    Time: new Date(Date.UTC(2026, 10, 2, 8 + (i % 10), i)).toISOString(),
    SurveyId: i % 3 ? 'p1' : 'p2',
    InterviewId: i,
    InterviewerId: i % 4 ? anna : null,
    TelephoneNumber: `3120${i}`,
    ExtendedStatus: i % 5 ? i % 10 : null,
    Duration: i * 7,
    WaitingTime: i % 9,
    Variables: i % 3 ? { Region: i % 2 ? 'North' : '+South', Hidden: 'x' } : { Age: String(20 + i) },
  }));
  expect((await t.json('POST', '/cati/callhistory', { body: { value }, key: integrate })).status).toBe(201);
});
afterAll(() => t.close());

describe('CSV exports', () => {
  it('every row, header = property names, UTF-8 with BOM, RFC 4180 CRLF, times ISO UTC ms, numbers as numbers', async () => {
    const { res, bytes, rows } = await csvOf('/cati/callhistory?$format=csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="callhistory-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.toString('utf8')).toContain('\r\n');
    const json = (await t.json('GET', '/cati/callhistory')).body.value as Record<string, unknown>[];
    expect(rows[0]).toEqual(['Id', 'Time', 'SurveyId', 'InterviewId', 'InterviewerId', 'TelephoneNumber', 'ExtendedStatus', 'Duration', 'WaitingTime', 'CallCenterId']);
    expect(rows).toHaveLength(41);
    expect(rows.slice(1)).toEqual(json.map((r) => rows[0]!.map((k) => (r[k] === null ? '' : String(r[k])))));
  });

  it('Accept: text/csv works too; $select order, $filter, $orderby and $top apply', async () => {
    const { res, rows } = await csvOf(`/cati/callhistory?$select=Duration,Id&$filter=${q('Duration gt 100')}&$orderby=Duration desc&$top=3`, { accept: 'text/csv' });
    expect(res.status).toBe(200);
    expect(rows).toEqual([['Duration', 'Id'], ['273', '40'], ['266', '39'], ['259', '38']]);
  });

  it('the formula guard and quoting of the opt-out export', async () => {
    const { rows } = await csvOf('/cati/interviewers?$format=csv&$select=Name,DisplayName,Description');
    expect(rows[1]).toEqual(['anna', `'=HYPERLINK("http://x")`, 'line 1\nline "2", more']);
  });

  it('$apply results export with their aliases as columns', async () => {
    const { rows } = await csvOf(`/cati/callhistory?$format=csv&$apply=${q('groupby((SurveyId),aggregate($count as Calls,Duration with average as Avg))')}`);
    expect(rows[0]).toEqual(['SurveyId', 'Calls', 'Avg']);
    const p2 = Array.from({ length: 40 }, (_, i) => i).filter((i) => i % 3 === 0);
    expect(rows.find((r) => r[0] === 'p2')).toEqual(['p2', String(p2.length), String(p2.reduce((a, i) => a + i * 7, 0) / p2.length)]);
  });

  it('/callhistorywithvariables: one column per requested variable, named as requested, guarded', async () => {
    const { res, rows } = await csvOf('/cati/callhistorywithvariables?startTime=2026-11-01T00:00:00Z&variables=region,Age&$format=csv&$select=Id,SurveyId');
    expect(res.status).toBe(200);
    expect(rows[0]).toEqual(['Id', 'SurveyId', 'region', 'Age']);
    expect(rows).toHaveLength(41);
    expect(rows.find((r) => r[0] === '1')).toEqual(['1', 'p2', '', '20']);
    expect(rows.find((r) => r[0] === '2')).toEqual(['2', 'p1', 'North', '']);
    expect(rows.find((r) => r[0] === '3')).toEqual(['3', 'p1', "'+South", '']);
  });

  it('Basic credentials (Excel, Power BI) may export; a single entity or a write cannot', async () => {
    const res = await t.request('GET', '/cati/callhistory?$format=csv&$top=1', { headers: { authorization: basic }, key: null });
    expect(res.status).toBe(200);
    expect((await t.json('GET', '/cati/callhistory(1)?$format=csv')).status).toBe(406);
    const post = await t.request('POST', '/cati/blacklist', { body: { TelephoneNumber: '123' }, headers: { accept: 'text/csv' } });
    expect(post.status).toBe(406);
    expect((await t.json('GET', '/cati/blacklist?$count=true')).body['@odata.count']).toBe(0);
  });

  it('HEAD answers the export headers without a body', async () => {
    const res = await t.request('HEAD', '/cati/callhistory?$format=csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="callhistory-/);
    expect(await res.text()).toBe('');
  });

  it('bad options → 400 before anything is streamed', async () => {
    const bad = await t.json('GET', `/cati/callhistory?$format=csv&$apply=${q('groupby((Nope))')}`);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-disposition')).toBeNull();
    expect((await t.json('GET', '/cati/callhistory?$format=csv&$skiptoken=abc')).status).toBe(400);
  });
});

describe('XLSX exports', () => {
  it('a sheet named after the set, header row, times as real dates, numbers as numbers', async () => {
    const { res, wb, rows } = await xlsxOf('/cati/callhistory?$format=xlsx&$select=Id,Time,SurveyId,InterviewerId');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(XLSX_TYPE);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="callhistory-\d{4}-\d{2}-\d{2}\.xlsx"$/);
    expect(wb.SheetNames).toEqual(['callhistory']);
    expect(rows[0]).toEqual(['Id', 'Time', 'SurveyId', 'InterviewerId']);
    expect(rows).toHaveLength(41);
    expect(rows[1]).toEqual([1, new Date('2026-11-02T08:00:00.000Z'), 'p2', null]);
    expect(rows[2]).toEqual([2, new Date('2026-11-02T09:01:00.000Z'), 'p1', 1]);
  });

  it('Accept with the xlsx media type; $apply results; strings stay text (no formulas)', async () => {
    const { res, rows } = await xlsxOf(`/cati/callhistory?$apply=${q('compute(hour(Time) as Hour)/groupby((Hour),aggregate($count as Calls))')}&$orderby=Hour`, { accept: XLSX_TYPE });
    expect(res.status).toBe(200);
    expect(rows).toEqual([['Hour', 'Calls'], ...Array.from({ length: 10 }, (_, h) => [8 + h, 4])]);
    const people = await xlsxOf('/cati/interviewers?$format=xlsx&$select=DisplayName');
    expect(people.rows[1]).toEqual(['=HYPERLINK("http://x")']);
    expect(people.wb.Sheets.interviewers!.A2.f).toBeUndefined();
  });

  it('/callhistorywithvariables with its variables', async () => {
    const { rows } = await xlsxOf('/cati/callhistorywithvariables?startTime=2026-11-01T00:00:00Z&variables=Region&$format=xlsx&$select=Id&$orderby=Id&$top=3');
    expect(rows).toEqual([['Id', 'Region'], [1, null], [2, 'North'], [3, '+South']]);
  });
});

describe('export limits and clients that go away', () => {
  let big: TestServer;
  beforeAll(async () => {
    big = await startTestServer();
    // 1,000,001 calls straight into the database (the ingest API would take minutes): one more than the CSV limit.
    await big.server.ctx.store.exec(`INSERT INTO surveys (id, name, state) VALUES ('p1', 'One', 'Open');
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000001)
      INSERT INTO calls (id, time, survey_id, telephone_number, duration, waiting_time, call_center_id)
      SELECT i, 1793000000000 + i * 1000, 'p1', '31' || i, i % 600, i % 30, 1 FROM n`);
  }, 120_000);
  afterAll(() => big.close());

  it('more than 1,000,000 rows → 400 before any byte; $top brings it within', async () => {
    const res = await big.request('GET', '/cati/callhistory?$format=csv');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('content-disposition')).toBeNull();
    expect((await res.json()).error.message).toMatch(/more than 1,000,000 rows/);
    const top = await big.request('GET', '/cati/callhistory?$format=csv&$top=5&$select=Id');
    expect(await bytesOf(top)).toBe('\uFEFFId\r\n1\r\n2\r\n3\r\n4\r\n5\r\n');
    const tail = await big.request('GET', '/cati/callhistory?$format=csv&$skip=999998&$select=Id');
    expect(tail.status).toBe(200);
    expect(await bytesOf(tail)).toBe('\uFEFFId\r\n999999\r\n1000000\r\n1000001\r\n');
    const many = await big.request('GET', '/cati/callhistory?$format=csv&$top=20000&$select=Id');
    expect((await bytesOf(many)).split('\r\n')).toHaveLength(20002); // header, 20,000 rows, the empty tail
    expect((await big.json('GET', '/cati/callhistory?$top=20000')).status).toBe(400); // JSON pages stay ≤ 10,000
    const grouped = await big.request('GET', `/cati/callhistory?$format=csv&$apply=${q('groupby((Id),aggregate($count as N))')}`);
    expect(grouped.status).toBe(400); // one group per call: over the limit too
  }, 60_000);

  it('rows read in batches (seeking on the key, or iterated) join without gaps or repeats, the key selected or not', async () => {
    const lines = async (query: string) => (await bytesOf(await big.request('GET', `/cati/callhistory?$format=csv&${query}`))).split('\r\n').slice(1, -1);
    const range = (from: number, n: number, step = 1) => Array.from({ length: n }, (_, i) => from + i * step);
    const iso = (id: number) => new Date(1793000000000 + id * 1000).toISOString();
    expect(await lines('$skip=1999&$top=4003&$select=Time')).toEqual(range(2000, 4003).map(iso));
    expect(await lines(`$filter=${q('Id gt 500000')}&$skip=2500&$top=2001&$select=Id,Duration`)).toEqual(range(502501, 2001).map((i) => `${i},${i % 600}`));
    expect(await lines('$orderby=Id desc&$top=4001&$select=Id')).toEqual(range(1000001, 4001, -1).map(String));
  }, 60_000);

  it('a client that aborts mid-export leaves the server healthy', async () => {
    const controller = new AbortController();
    const res = await fetch(`${big.url}/cati/callhistory?$format=csv&$filter=${q('Id le 900000')}`, {
      headers: { authorization: `Bearer ${TEST_API_KEY}` },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let got = 0;
    while (got < 1_000_000) got += (await reader.read()).value?.length ?? 0;
    controller.abort();
    const after = await big.json('GET', '/cati/callhistory?$top=1&$count=true');
    expect(after.status).toBe(200);
    expect(after.body['@odata.count']).toBe(1000001);
    const again = await big.request('GET', `/cati/callhistory?$format=csv&$filter=${q('Id le 3')}&$select=Id`);
    expect(await bytesOf(again)).toBe('\uFEFFId\r\n1\r\n2\r\n3\r\n');
  }, 60_000);
});
