/**
 * /callhistorywithvariables along its cheap path (docs/cati-api.md#performance: pages merged from the four sources
 * after a cursor, never numbering the whole union) answers exactly what the generic query over the union answers
 * (forced here by a $filter that keeps every row): same rows, NumberInOrder, Variables, $count, paging.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
const T0 = Date.parse('2026-11-02T08:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

beforeAll(async () => {
  t = await startTestServer();
  const post = async (path: string, body: unknown) => expect((await t.json('POST', path, { body })).status).toBe(201);
  await post('/cati/surveys', { SurveyId: 'p1', SurveyName: 'One', State: 'Open', Variables: [{ Name: 'Region', AvailableAsCatiFilter: true }] });
  await post('/cati/surveys', { SurveyId: 'p2', SurveyName: 'Two', State: 'Open', Variables: [{ Name: 'Age', AvailableAsCatiFilter: true }] });
  const anna = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'anna' } })).body.InterviewerId;
  // 4,500 calls, many on the same instant (ties broken by source then id), posted out of time order.
  const calls = Array.from({ length: 4500 }, (_, i) => ({
    Time: iso(T0 + Math.floor(((i * 7919) % 4500) / 3) * 60_000), SurveyId: i % 3 ? 'p1' : 'p2', InterviewId: i % 50, InterviewerId: i % 4 ? anna : null,
    TelephoneNumber: '31201234567', Duration: 30, WaitingTime: 1, Variables: i % 3 ? { Region: `R${i % 7}` } : { Age: String(i % 90) },
  }));
  await post('/cati/callhistory', { value: calls });
  await post('/cati/breakhistory', { value: Array.from({ length: 40 }, (_, i) => ({ Time: iso(T0 + i * 6 * 60_000), SurveyId: 'p1', Duration: 60, InterviewerId: anna, BreakTypeId: 1, BreakTypeName: 'Coffee' })) });
  for (let i = 0; i < 20; i++) {
    await post('/cati/interviewersessionhistory', { InterviewerId: anna, LoginTime: iso(T0 + i * 12 * 60_000), LogoutTime: iso(T0 + i * 12 * 60_000 + 6 * 60_000) });
  }
});
afterAll(() => t.close());

/** Every row, following @odata.nextLink (bounded). */
async function all(path: string): Promise<unknown[]> {
  const rows: unknown[] = [];
  let next: string | undefined = path;
  for (let i = 0; next && i < 20; i++) {
    const r: { status: number; body: any } = await t.json('GET', next.startsWith('http') ? next.slice(t.url.length) : next);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    rows.push(...r.body.value);
    next = r.body['@odata.nextLink'];
  }
  return rows;
}

const base = `/cati/callhistorywithvariables?startTime=${iso(T0 - 1)}&endTime=${iso(T0 + 86_400_000)}`;
const generic = '$filter=NumberInOrder ge 0';

describe('/callhistorywithvariables cheap paging', () => {
  for (const extra of ['', '&includeBreakTimes=true', '&includeBreakTimes=true&includeLoginLogoutInfo=true&variables=Region,Age', '&surveyIds=p1&includeLoginLogoutInfo=true&variables=Region']) {
    it(`matches the generic query row for row${extra}`, async () => {
      const cheap = await all(`${base}${extra}`);
      expect(cheap.length).toBeGreaterThan(1000);
      expect(cheap).toEqual(await all(`${base}${extra}&${generic}`));
    });
  }

  it('$skip, $top, $count and $select agree with the generic query', async () => {
    for (const q of ['$skip=997&$top=7&$count=true', '$skip=4100&$top=5', '$skip=2001', '$skip=4570', '$top=3&$select=NumberInOrder,Time,EventType', '$count=true&$top=0', '$orderby=NumberInOrder&$skip=1490&$top=100']) {
      const a = await t.json('GET', `${base}&includeBreakTimes=true&includeLoginLogoutInfo=true&${q}`);
      const b = await t.json('GET', `${base}&includeBreakTimes=true&includeLoginLogoutInfo=true&${q}&${generic}`);
      expect(a.status).toBe(200);
      expect(a.body.value).toEqual(b.body.value);
      expect(a.body['@odata.count']).toEqual(b.body['@odata.count']);
    }
  });

  it('without startTime/endTime (no window, docs/cati-api.md#callhistorywithvariables) pages carry NumberInOrder on and match the generic query', async () => {
    const unbounded = '/cati/callhistorywithvariables?includeBreakTimes=true&includeLoginLogoutInfo=true';
    const cheap = (await all(unbounded)) as { NumberInOrder: number }[];
    expect(cheap.length).toBe(4500 + 40 + 40);
    expect(cheap.map((r) => r.NumberInOrder)).toEqual([...cheap.keys()]);
    expect(cheap).toEqual(await all(`${unbounded}&${generic}`));
  });

  it('a forged $skiptoken → 400', async () => {
    const forged = Buffer.from(JSON.stringify({ o: 'NumberInOrder+', v: ['3 OR 1=1'], c: [1, 'x', 2] })).toString('base64url');
    expect((await t.json('GET', `${base}&$skiptoken=${forged}`)).status).toBe(400);
  });
});
