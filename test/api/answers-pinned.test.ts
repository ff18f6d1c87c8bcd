/**
 * Pins a few answers byte for byte (the fast path: the serializer over raw rows must write exactly what the
 * generic formatter wrote): collections with and without $select/$count/$orderby, entity by key, the three
 * metadata levels, IEEE754Compatible, groups and surveys with their computed collections, and
 * /callhistorywithvariables with variables, breaks and logins. The server URL is replaced by `ROOT`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { PINNED } from './answers-pinned.data.ts';

let t: TestServer;

const post = async (path: string, body: unknown) => {
  const r = await t.json('POST', path, { body });
  expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(201);
  return r.body;
};

beforeAll(async () => {
  t = await startTestServer();
  await post('/cati/surveys', { SurveyId: 'p1', SurveyName: 'One "quoted" \u00e9', State: 'Open', SampleSize: 10, Variables: [{ Name: 'Region', AvailableAsCatiFilter: true }, { Name: 'Hidden', AvailableAsCatiFilter: false }] });
  await post('/cati/surveys', { SurveyId: 'p2', SurveyName: 'Two', State: 'Closed', Variables: [{ Name: 'Age', AvailableAsCatiFilter: true }] });
  const g = await post('/cati/groups', { Name: 'Team A', Description: 'Day shift\nline two' });
  await post('/cati/groups', { Name: 'Team B', ParentGroups: [g.GroupId] });
  const anna = (await post('/cati/interviewerproperties', { Name: 'anna', DisplayName: 'Anna <A>', ParentGroups: [g.GroupId] })).InterviewerId;
  const ben = (await post('/cati/interviewerproperties', { Name: 'ben' })).InterviewerId;
  const call = (time: string, extra: Record<string, unknown> = {}) => ({
    Time: time, SurveyId: 'p1', InterviewerId: anna, TelephoneNumber: '31201234567', ExtendedStatus: 1, Duration: 60, WaitingTime: 3, ...extra,
  });
  await post('/cati/callhistory', {
    value: [
      call('2026-11-02T09:00:00Z', { InterviewId: 1, Variables: { Region: 'North', Hidden: 'x' } }),
      call('2026-11-02T10:00:00+01:00', { InterviewId: 2, Variables: { Region: 'Sou\u201dth' } }),
      call('2026-11-02T11:00:00.123Z', { SurveyId: 'p2', InterviewerId: ben, InterviewId: 1, Variables: { Age: '42' }, Duration: 300 }),
      call('2026-11-03T09:00:00Z', { InterviewId: 3, Duration: null, ExtendedStatus: null, InterviewerId: null }),
    ],
  });
  await post('/cati/breakhistory', { Time: '2026-11-02T09:30:00Z', SurveyId: 'p1', Duration: 600, InterviewerId: anna, BreakTypeId: 1, BreakTypeName: 'Coffee', IsPaid: true });
  await post('/cati/interviewersessionhistory', { value: [
    { InterviewerId: anna, LoginTime: '2026-11-02T08:00:00Z', LogoutTime: '2026-11-02T12:00:00Z' },
    { InterviewerId: ben, LoginTime: '2026-11-02T10:30:00Z' },
  ] });
});
afterAll(() => t.close());

describe('answers pinned byte for byte', () => {
  for (const [key, expected] of Object.entries(PINNED)) {
    it(key, async () => {
      const space = key.indexOf(' ');
      const [accept, path] = key.startsWith('application/') ? [key.slice(0, space), key.slice(space + 1)] : ['application/json', key];
      const res = await t.request('GET', path, { headers: { accept } });
      const text = (await res.text()).split(t.url).join('ROOT');
      expect(`${res.status} ${res.headers.get('content-type')} ${text}`).toBe(expected);
    });
  }
});

describe('a large $top is streamed in chunks', () => {
  it('answers the same rows as the pages it is made of, in order, with $count', async () => {
    const body = { value: Array.from({ length: 2500 }, (_, i) => ({ Time: new Date(Date.UTC(2026, 10, 4) + (i % 700) * 1000).toISOString(), SurveyId: 'p1', TelephoneNumber: `3120${i}`, Duration: i % 9, WaitingTime: 1 })) };
    expect((await t.json('POST', '/cati/callhistory', { body })).status).toBe(201);
    for (const q of ['$top=2300&$skip=3', '$top=2100&$orderby=Duration desc,Time&$count=true', '$top=1500&$filter=Time ge 2026-11-04T00:00:00Z&$select=Id,Time']) {
      const big = await t.json('GET', `/cati/callhistory?${q}`);
      expect(big.status).toBe(200);
      const pages = await Promise.all([0, 1, 2, 3].map((n) => t.json('GET', `/cati/callhistory?${q.replace(/\$top=\d+/, '$top=600')}&$skip=${n * 600 + (q.includes('$skip=3') ? 3 : 0)}`.replace('&$skip=3&', '&'))));
      const expected = pages.flatMap((p) => p.body.value).slice(0, Number(/\$top=(\d+)/.exec(q)![1]));
      expect(big.body.value).toEqual(expected);
      expect(big.body['@odata.count']).toEqual(pages[0]!.body['@odata.count']);
    }
  });
});
