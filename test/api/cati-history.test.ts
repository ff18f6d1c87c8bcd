import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let adminKey: string;
let integrateKey: string;
let anna: number;
let ben: number;

const post = (path: string, body: unknown) => t.json('POST', path, { body, key: integrateKey });
const call = (time: string, extra: Record<string, unknown> = {}) => ({
  Time: time, SurveyId: 'p1', InterviewerId: anna, TelephoneNumber: '31201234567', ExtendedStatus: 1, Duration: 60, WaitingTime: 3, ...extra,
});

beforeAll(async () => {
  t = await startTestServer();
  adminKey = (await t.server.ctx.keys.create('admin', ['cati_administrate'])).key;
  integrateKey = (await t.server.ctx.keys.create('dialer', ['cati_integrate'])).key;
  await post('/cati/surveys', { SurveyId: 'p1', SurveyName: 'One', State: 'Open', Variables: [{ Name: 'Region', AvailableAsCatiFilter: true }, { Name: 'Hidden', AvailableAsCatiFilter: false }] });
  await post('/cati/surveys', { SurveyId: 'p2', SurveyName: 'Two', State: 'Open', Variables: [{ Name: 'Age', AvailableAsCatiFilter: true }] });
  anna = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'anna' } })).body.InterviewerId;
  ben = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'ben' } })).body.InterviewerId;
  const calls = await post('/cati/callhistory', {
    value: [
      call('2026-11-02T09:00:00Z', { InterviewId: 1, Variables: { Region: 'North', Hidden: 'x' } }),
      call('2026-11-02T10:00:00+01:00', { InterviewId: 2, Variables: { Region: 'South' } }), // 09:00Z, same time
      call('2026-11-02T11:00:00Z', { SurveyId: 'p2', InterviewerId: ben, InterviewId: 1, Variables: { Age: '42' }, Duration: 300 }),
      call('2026-11-03T09:00:00Z', { InterviewId: 3, Duration: 5 }),
    ],
  });
  expect(calls.status).toBe(201);
  expect((await post('/cati/breakhistory', { Time: '2026-11-02T09:30:00Z', SurveyId: 'p1', Duration: 600, InterviewerId: anna, BreakTypeId: 1, BreakTypeName: 'Coffee', IsPaid: true })).status).toBe(201);
  expect((await post('/cati/interviewersessionhistory', { value: [
    { InterviewerId: anna, LoginTime: '2026-11-02T08:00:00Z', LogoutTime: '2026-11-02T12:00:00Z' },
    { InterviewerId: ben, LoginTime: '2026-11-02T10:30:00Z' },
  ] })).status).toBe(201);
});
afterAll(() => t.close());

describe('history ingest', () => {
  it('answers 201 {"value": [ids]} in the order posted, for one record or a batch', async () => {
    const one = await post('/cati/breakhistory', { Time: '2026-11-04T09:00:00Z', InterviewerId: anna, BreakTypeId: 2, BreakTypeName: 'Lunch' });
    expect(one.status).toBe(201);
    expect(one.body.value).toHaveLength(1);
    const got = await t.json('GET', `/cati/breakhistory(${one.body.value[0]})`);
    expect(got.body).toMatchObject({ Time: '2026-11-04T09:00:00.000Z', SurveyId: null, Duration: null, IsPaid: null, BreakTypeName: 'Lunch' });
  });

  it('a batch with one referential error stores nothing and names the record index', async () => {
    const before = (await t.json('GET', '/cati/callhistory?$count=true&$top=0')).body['@odata.count'];
    for (const bad of [{ SurveyId: 'p9' }, { InterviewerId: 9999 }, { CallCenterId: 42 }]) {
      const r = await post('/cati/callhistory', { value: [call('2026-11-05T09:00:00Z'), call('2026-11-05T09:01:00Z', bad)] });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/Record 1/);
    }
    const r = await post('/cati/callhistory', { value: [call('2026-11-05T09:00:00Z'), call('not a time')] });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/Record 1: Time/);
    expect((await t.json('GET', '/cati/callhistory?$count=true&$top=0')).body['@odata.count']).toBe(before);
  });

  it('a single record with a referential error names it as record 0', async () => {
    for (const [bad, what] of [[{ SurveyId: 'p9' }, /survey 'p9'/], [{ InterviewerId: 9999 }, /interviewer 9999/], [{ CallCenterId: 42 }, /call centre 42/]] as const) {
      const r = await post('/cati/callhistory', call('2026-11-05T09:00:00Z', bad));
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/^Record 0: unknown /);
      expect(r.body.error.message).toMatch(what);
    }
  });

  it('refuses more than 10000 records, unknown fields and server-assigned ids', async () => {
    const many = Array.from({ length: 10001 }, () => call('2026-11-05T09:00:00Z'));
    expect((await post('/cati/callhistory', { value: many })).status).toBe(400);
    expect((await post('/cati/callhistory', call('2026-11-05T09:00:00Z', { Colour: 'red' }))).body.error.message).toMatch(/Colour/);
    expect((await post('/cati/callhistory', call('2026-11-05T09:00:00Z', { Id: 5 }))).status).toBe(400);
  });

  it('is for cati_integrate only; history reads are for cati_administrate', async () => {
    expect((await t.json('POST', '/cati/callhistory', { body: call('2026-11-05T09:00:00Z'), key: adminKey })).status).toBe(403);
    expect((await t.json('GET', '/cati/callhistory', { key: integrateKey })).status).toBe(403);
    expect((await t.json('GET', '/cati/callhistory', { key: adminKey })).status).toBe(200);
  });

  it('PATCH closes a session (with If-Match); a session GET by key answers a collection of one', async () => {
    const open = (await t.json('GET', `/cati/interviewersessionhistory?$filter=LogoutTime eq null and InterviewerId eq ${ben}`)).body.value[0];
    const id = open.SessionId;
    const byKey = await t.json('GET', `/cati/interviewersessionhistory(${id})`);
    expect(byKey.body['@odata.context']).toMatch(/#interviewersessionhistory$/);
    expect(byKey.body.value).toHaveLength(1);
    expect((await t.json('PATCH', `/cati/interviewersessionhistory(${id})`, { body: { LogoutTime: '2026-11-02T14:00:00Z' }, key: integrateKey, headers: { 'if-match': 'W/"7"' } })).status).toBe(412);
    const r = await t.json('PATCH', `/cati/interviewersessionhistory(${id})`, { body: { LogoutTime: '2026-11-02T14:00:00Z' }, key: integrateKey });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ SessionId: id, LogoutTime: '2026-11-02T14:00:00.000Z' });
    expect((await t.json('PATCH', '/cati/interviewersessionhistory(99999)', { body: { LogoutTime: '2026-11-02T14:00:00Z' }, key: integrateKey })).status).toBe(404);
    expect((await t.json('GET', '/cati/interviewersessionhistory(99999)')).status).toBe(404);
  });

  it('$metadata declares exactly the sets whose GET by key answers a collection as not readable by key', async () => {
    const xml = await (await t.request('GET', '/cati/$metadata')).text();
    const byKey = (set: string) => {
      const block = new RegExp(`<Annotations Target="Controller\\.Container/${set}">([\\s\\S]*?)</Annotations>`).exec(xml)?.[1] ?? '';
      return /<PropertyValue Property="ReadByKeyRestrictions"><Record><PropertyValue Property="Readable" Bool="(true|false)"\/>/.exec(block)?.[1];
    };
    expect(byKey('interviewersessionhistory')).toBe('false');
    expect(byKey('callhistorywithvariables')).toBe('false');
    for (const set of ['callhistory', 'breakhistory', 'blacklist', 'interviewers', 'groups', 'surveys']) {
      expect(byKey(set), set).toBe('true');
      const id = (await t.json('GET', `/cati/${set}?$top=1`)).body.value[0];
      if (!id) continue;
      const key = Object.values(id)[0];
      const one = await t.json('GET', `/cati/${set}(${typeof key === 'string' ? `'${key}'` : key})`);
      expect(one.body.value, set).toBeUndefined();
    }
  });
});

describe('history reads', () => {
  it('filter by a time range (start inclusive, end exclusive), order, select and count', async () => {
    const r = await t.json('GET', '/cati/callhistory?$filter=Time ge 2026-11-02T09:00:00Z and Time lt 2026-11-02T11:00:00Z&$orderby=Id desc&$select=Id,Time&$count=true');
    expect(r.status).toBe(200);
    expect(r.body['@odata.count']).toBe(2);
    expect(r.body.value.map((x: { Id: number; Time: string }) => [x.Id, x.Time])).toEqual([
      [2, '2026-11-02T09:00:00.000Z'],
      [1, '2026-11-02T09:00:00.000Z'],
    ]);
    expect(r.body.value[0]).not.toHaveProperty('SurveyId');
  });

  it('a bad $filter is a 400 naming the problem', async () => {
    const r = await t.json('GET', '/cati/callhistory?$filter=Colour eq 1');
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/Colour/);
  });

  it('history survives a deleted interviewer (InterviewerId stays, InterviewerName becomes null)', async () => {
    const tmp = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'temp' } })).body.InterviewerId;
    const id = (await post('/cati/callhistory', call('2026-11-06T09:00:00Z', { InterviewerId: tmp }))).body.value[0];
    const named = await t.json('GET', '/cati/callhistorywithvariables?startTime=2026-11-06T00:00:00Z');
    expect(named.body.value[0]).toMatchObject({ Id: id, InterviewerName: 'temp' });
    expect((await t.request('DELETE', `/cati/interviewerproperties(${tmp})`)).status).toBe(204);
    expect((await t.json('GET', `/cati/callhistory(${id})`)).body.InterviewerId).toBe(tmp);
    const after = await t.json('GET', '/cati/callhistorywithvariables?startTime=2026-11-06T00:00:00Z');
    expect(after.body.value[0]).toMatchObject({ Id: id, InterviewerId: tmp, InterviewerName: null });
  });
});

describe('/callhistorywithvariables', () => {
  const chv = (query: string) => t.json('GET', `/cati/callhistorywithvariables?${query}`);

  it('answers calls in time order with variables echoed as requested, null where a survey lacks them', async () => {
    const r = await chv('startTime=2026-11-02T00:00:00Z&endTime=2026-11-03T00:00:00Z&variables=region;AGE');
    expect(r.status).toBe(200);
    expect(r.body.value.map((x: { NumberInOrder: number; EventType: string; Id: number }) => [x.NumberInOrder, x.EventType, x.Id])).toEqual([
      [0, 'Call', 1], [1, 'Call', 2], [2, 'Call', 3],
    ]);
    expect(r.body.value[0]).toMatchObject({ SurveyName: 'One', InterviewerName: 'anna', Variables: [{ Name: 'region', Value: 'North' }, { Name: 'AGE', Value: null }] });
    expect(r.body.value[2].Variables).toEqual([{ Name: 'region', Value: null }, { Name: 'AGE', Value: '42' }]);
  });

  it('includes breaks and login/logout rows only with their flags; NumberInOrder counts the rows after filtering', async () => {
    const r = await chv('startTime=2026-11-02T00:00:00Z&endTime=2026-11-03T00:00:00Z&includeBreakTimes=true&includeLoginLogoutInfo=true');
    expect(r.body.value.map((x: { EventType: string }) => x.EventType)).toEqual(['Login', 'Call', 'Call', 'Break', 'Login', 'Call', 'Logout', 'Logout']);
    expect(r.body.value.map((x: { NumberInOrder: number }) => x.NumberInOrder)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const breaksOnly = await chv('startTime=2026-11-02T00:00:00Z&endTime=2026-11-03T00:00:00Z&includeBreakTimes=true');
    expect(breaksOnly.body.value.map((x: { EventType: string }) => x.EventType)).toEqual(['Call', 'Call', 'Break', 'Call']);
  });

  it('without startTime no lower time bound, without endTime no upper bound: no default window (docs/cati-api.md#callhistorywithvariables)', async () => {
    const ids = (r: { body: { value: { Id: number }[] } }) => r.body.value.map((x) => x.Id);
    const before10 = await chv('endTime=2026-11-02T10:00:00Z');
    expect(ids(before10)).toEqual([1, 2]);
    const added = await post('/cati/callhistory', { value: [call('2019-03-01T09:00:00Z'), call(new Date(Date.now() - 60_000).toISOString())] });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const [old, future] = added.body.value;
    const total = (await t.json('GET', '/cati/callhistory/$count')).body;
    const all = await chv('$count=true');
    expect(all.body['@odata.count']).toBe(total);
    expect(ids(all)[0]).toBe(old);
    expect(ids(all).at(-1)).toBe(future);
    expect(all.body.value.map((x: { NumberInOrder: number }) => x.NumberInOrder)).toEqual([...Array(total).keys()]);
    expect(ids(await chv('endTime=2026-11-02T10:00:00Z'))).toEqual([old, 1, 2]);
    expect(ids(await chv('startTime=2026-11-03T00:00:00Z')).slice(-1)).toEqual([future]);
    // The generic path ($filter) has the same bounds.
    const filtered = await chv("$filter=EventType eq 'Call'&$count=true");
    expect(filtered.body['@odata.count']).toBe(total);
    expect(filtered.body.value[0]).toMatchObject({ Id: old, NumberInOrder: 0 });
  });

  it('start is inclusive and end exclusive', async () => {
    const r = await chv('startTime=2026-11-02T09:00:00Z&endTime=2026-11-02T11:00:00Z');
    expect(r.body.value.map((x: { Id: number }) => x.Id)).toEqual([1, 2]);
  });

  it('skips unknown survey ids when mixed with known ones; all unknown → 400', async () => {
    const mixed = await chv('surveyIds=p2,p404;nonsense&startTime=2026-11-02T00:00:00Z&endTime=2026-11-03T00:00:00Z');
    expect(mixed.status).toBe(200);
    expect(mixed.body.value.map((x: { SurveyId: string }) => x.SurveyId)).toEqual(['p2']);
    const none = await chv('surveyIds=p404;p405');
    expect(none.status).toBe(400);
    expect(none.body.error.message).toMatch(/p404/);
  });

  it('a variable not available as CATI filter in any requested survey → 400 naming it', async () => {
    const hidden = await chv('variables=Hidden');
    expect(hidden.status).toBe(400);
    expect(hidden.body.error.message).toMatch(/'Hidden'/);
    const wrongSurvey = await chv('surveyIds=p1&variables=Age');
    expect(wrongSurvey.status).toBe(400);
    expect(wrongSurvey.body.error.message).toMatch(/'Age'/);
  });

  it('OData query options apply on top; bad parameters are 400', async () => {
    const r = await chv("startTime=2026-11-02T00:00:00Z&endTime=2026-11-03T00:00:00Z&includeLoginLogoutInfo=true&$filter=EventType eq 'Call' and Duration gt 100&$count=true&$select=Id,NumberInOrder");
    expect(r.body['@odata.count']).toBe(1);
    expect(r.body.value).toEqual([{ NumberInOrder: 4, Id: 3 }]); // Login, Call, Call, Login (ben), Call 3
    const page = await chv('startTime=2026-11-02T00:00:00Z&$top=2&$skip=1&$orderby=Time desc');
    expect(page.body.value).toHaveLength(2);
    expect((await chv('startTime=yesterday')).status).toBe(400);
    expect((await chv('includeBreakTimes=maybe')).status).toBe(400);
    expect((await chv('startime=2026-11-02T00:00:00Z')).body.error.message).toMatch(/startTime/);
    expect((await t.json('GET', '/cati/callhistorywithvariables(1)')).status).toBe(405);
  });
});

describe('the history screens’ filters (docs/cati-api.md#history-filters)', () => {
  /** The set's rows matching `filter` through the API, and the same rows picked in JS from the whole set. */
  const both = async (set: string, filter: string, pick: (r: any) => boolean) => {
    const all = (await t.json('GET', `/cati/${set}?$top=1000`, { key: adminKey })).body.value as any[];
    const r = await t.json('GET', `/cati/${set}?$top=1000&$filter=${encodeURIComponent(filter)}`, { key: adminKey });
    expect(r.status, filter).toBe(200);
    return [r.body.value.length, all.filter(pick).length];
  };
  it('calls by outcome, survey, interviewer and centre; breaks by break type, interviewer and centre; sessions by interviewer and centre', async () => {
    const cases: [string, string, (r: any) => boolean][] = [
      ['callhistory', `ExtendedStatus in (1,2) and SurveyId eq 'p1' and InterviewerId eq ${anna} and CallCenterId eq 1`, (r) => [1, 2].includes(r.ExtendedStatus) && r.SurveyId === 'p1' && r.InterviewerId === anna && r.CallCenterId === 1],
      ['callhistory', `SurveyId eq 'p2' and InterviewerId in (${anna},${ben})`, (r) => r.SurveyId === 'p2' && [anna, ben].includes(r.InterviewerId)],
      ['breakhistory', `BreakTypeId eq 1 and InterviewerId eq ${anna} and CallCenterId eq 1`, (r) => r.BreakTypeId === 1 && r.InterviewerId === anna && r.CallCenterId === 1],
      ['breakhistory', 'BreakTypeId in (2,3)', (r) => [2, 3].includes(r.BreakTypeId)],
      ['interviewersessionhistory', `InterviewerId eq ${ben} and CallCenterId eq 1`, (r) => r.InterviewerId === ben && r.CallCenterId === 1],
      ['interviewersessionhistory', `InterviewerId in (${anna},${ben}) and CallCenterId eq 2`, (r) => r.CallCenterId === 2],
    ];
    for (const [set, filter, pick] of cases) {
      const [api, js] = await both(set, filter, pick);
      expect(api, `${set} ${filter}`).toBe(js);
    }
    expect((await both('callhistory', 'ExtendedStatus eq 1', (r) => r.ExtendedStatus === 1))[0]).toBeGreaterThan(0);
    expect((await both('breakhistory', 'BreakTypeId eq 1', (r) => r.BreakTypeId === 1))[0]).toBeGreaterThan(0);
  });
});
