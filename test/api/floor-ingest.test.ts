import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let adminKey: string;
let integrateKey: string;
let anna: number;
let ben: number;

const iso = (ms: number) => new Date(ms).toISOString();
const ago = (minutes: number) => iso(Date.now() - minutes * 60_000);
const post = (path: string, body: unknown) => t.json('POST', path, { body, key: integrateKey });
const patch = (path: string, body: unknown, key = integrateKey) => t.json('PATCH', path, { body, key });
const call = (time: string, extra: Record<string, unknown> = {}) => ({ Time: time, SurveyId: 'p1', InterviewerId: anna, TelephoneNumber: '31201234567', ...extra });
const count = async (path: string) => (await t.json('GET', `${path}${path.includes('?') ? '&' : '?'}$count=true&$top=0`)).body['@odata.count'] as number;

beforeAll(async () => {
  t = await startTestServer();
  adminKey = (await t.server.ctx.keys.create('supervisor', ['cati_administrate'])).key;
  integrateKey = (await t.server.ctx.keys.create('dialer', ['cati_integrate'])).key;
  await post('/cati/surveys', { SurveyId: 'p1', SurveyName: 'One', State: 'Open', Variables: [{ Name: 'Q1', AvailableAsCatiFilter: true }] });
  anna = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'anna' } })).body.InterviewerId;
  ben = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'ben' } })).body.InterviewerId;
});
afterAll(() => t.close());

describe('open calls and breaks (docs/cati-api.md#floor)', () => {
  it('a call posted with Duration null is open; PATCH closes it with Duration, ExtendedStatus, WaitingTime, Variables', async () => {
    const [id] = (await post('/cati/callhistory', call(ago(2), { Duration: null, InterviewId: 7 }))).body.value;
    const open = await t.json('GET', `/cati/callhistory(${id})`);
    expect(open.body).toMatchObject({ Duration: null, ExtendedStatus: null, WaitingTime: 0 });
    const closed = await patch(`/cati/callhistory(${id})`, { Duration: 95, ExtendedStatus: 1, WaitingTime: 4, Variables: { Q1: 'yes' } });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ Id: id, Duration: 95, ExtendedStatus: 1, WaitingTime: 4 });
    expect(closed.headers.get('etag')).not.toBe(open.headers.get('etag'));
    const withVars = await t.json('GET', `/cati/callhistorywithvariables?variables=Q1&$filter=Id eq ${id}`);
    expect(withVars.body.value[0].Variables).toEqual([{ Name: 'Q1', Value: 'yes' }]);
  });

  it('a call posted without Duration is closed with Duration 0, as before open calls existed', async () => {
    const [id] = (await post('/cati/callhistory', call(ago(3)))).body.value;
    expect((await t.json('GET', `/cati/callhistory(${id})`)).body.Duration).toBe(0);
  });

  it('PATCH of an already closed call or break is a 409 with a message; nothing changes', async () => {
    const [id] = (await post('/cati/callhistory', call(ago(4), { Duration: 30, ExtendedStatus: 5 }))).body.value;
    const again = await patch(`/cati/callhistory(${id})`, { Duration: 99 });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/already closed/);
    expect((await t.json('GET', `/cati/callhistory(${id})`)).body).toMatchObject({ Duration: 30, ExtendedStatus: 5 });
    const [b] = (await post('/cati/breakhistory', { Time: ago(5), InterviewerId: anna, BreakTypeId: 1, BreakTypeName: 'Coffee' })).body.value;
    expect((await patch(`/cati/breakhistory(${b})`, { Duration: 120 })).status).toBe(200);
    const twice = await patch(`/cati/breakhistory(${b})`, { Duration: 130 });
    expect(twice.status).toBe(409);
    expect(twice.body.error.message).toMatch(/Break \d+ is already closed/);
  });

  it('PATCH needs cati_integrate (403 for a supervisor key), a Duration (400), a known id (404), known fields (400)', async () => {
    const [id] = (await post('/cati/callhistory', call(ago(6), { Duration: null }))).body.value;
    expect((await patch(`/cati/callhistory(${id})`, { Duration: 10 }, adminKey)).status).toBe(403);
    const noDuration = await patch(`/cati/callhistory(${id})`, { ExtendedStatus: 1 });
    expect(noDuration.status).toBe(400);
    expect(noDuration.body.error.message).toMatch(/Duration/);
    expect((await patch(`/cati/callhistory(${id})`, { Duration: -1 })).status).toBe(400);
    expect((await patch(`/cati/callhistory(${id})`, { Duration: 10, Colour: 'red' })).body.error.message).toMatch(/Colour/);
    expect((await patch('/cati/callhistory(999999)', { Duration: 10 })).status).toBe(404);
    expect((await patch('/cati/breakhistory(999999)', { Duration: 10 })).status).toBe(404);
    expect((await t.json('GET', `/cati/callhistory(${id})`)).body.Duration).toBeNull();
  });

  it('PATCH of a session needs cati_integrate; closing a closed session is a 409', async () => {
    const [s] = (await post('/cati/interviewersessionhistory', { InterviewerId: ben, LoginTime: ago(60), LogoutTime: ago(30) })).body.value;
    expect((await patch(`/cati/interviewersessionhistory(${s})`, { LogoutTime: ago(1) }, adminKey)).status).toBe(403);
    const r = await patch(`/cati/interviewersessionhistory(${s})`, { LogoutTime: ago(1) });
    expect(r.status).toBe(409);
    expect(r.body.error.message).toMatch(/already closed/);
  });
});

describe('one open session per interviewer', () => {
  it('a new login closes the previous open session at the new LoginTime', async () => {
    const first = (await post('/cati/interviewersessionhistory', { InterviewerId: ben, LoginTime: ago(50) })).body.value[0];
    const loginAgain = ago(20);
    const second = (await post('/cati/interviewersessionhistory', { InterviewerId: ben, LoginTime: loginAgain })).body.value[0];
    const sessions = (await t.json('GET', `/cati/interviewersessionhistory?$filter=SessionId in (${first},${second})`)).body.value;
    expect(sessions).toEqual([
      expect.objectContaining({ SessionId: first, LogoutTime: loginAgain }),
      expect.objectContaining({ SessionId: second, LogoutTime: null }),
    ]);
    expect(await count(`/cati/interviewersessionhistory?$filter=InterviewerId eq ${ben} and LogoutTime eq null`)).toBe(1);
  });

  it('within one batch too; an open login posted before a later open one is closed at the later LoginTime', async () => {
    const ids = (await post('/cati/interviewersessionhistory', {
      value: [
        { InterviewerId: anna, LoginTime: ago(40) },
        { InterviewerId: anna, LoginTime: ago(10) },
        { InterviewerId: anna, LoginTime: ago(25) },
      ],
    })).body.value as number[];
    const rows = (await t.json('GET', `/cati/interviewersessionhistory?$filter=SessionId in (${ids.join(',')})&$orderby=LoginTime`)).body.value;
    expect(rows.map((r: { SessionId: number }) => r.SessionId)).toEqual([ids[0], ids[2], ids[1]]);
    expect(rows[0].LogoutTime).toBe(rows[2].LoginTime); // closed by the 10-minutes-ago login (the first to close it)
    expect(rows[1].LogoutTime).toBe(rows[2].LoginTime); // posted open before the later open login: closed at its time
    expect(rows[2].LogoutTime).toBeNull();
  });
});

describe('times more than 5 minutes in the future → 400, and a refused batch stores nothing', () => {
  const future = () => iso(Date.now() + 10 * 60_000);
  const soon = () => iso(Date.now() + 2 * 60_000);

  it('for call Time, break Time, LoginTime and LogoutTime, posted or patched', async () => {
    const cases: [string, unknown, RegExp][] = [
      ['/cati/callhistory', call(future()), /Time .* is in the future/],
      ['/cati/breakhistory', { Time: future(), InterviewerId: anna, BreakTypeId: 1, BreakTypeName: 'Coffee' }, /Time .* in the future/],
      ['/cati/interviewersessionhistory', { InterviewerId: anna, LoginTime: future() }, /LoginTime .* in the future/],
      ['/cati/interviewersessionhistory', { InterviewerId: anna, LoginTime: ago(5), LogoutTime: future() }, /LogoutTime .* in the future/],
    ];
    for (const [path, body, message] of cases) {
      const r = await post(path, body);
      expect(r.status, path).toBe(400);
      expect(r.body.error.message).toMatch(message);
    }
    const [s] = (await post('/cati/interviewersessionhistory', { InterviewerId: ben, LoginTime: ago(5) })).body.value;
    expect((await patch(`/cati/interviewersessionhistory(${s})`, { LogoutTime: future() })).status).toBe(400);
    const [c] = (await post('/cati/callhistory', call(ago(1), { Duration: null }))).body.value;
    expect((await patch(`/cati/callhistory(${c})`, { Duration: 5, Time: future() })).status).toBe(400);
    expect((await t.json('GET', `/cati/callhistory(${c})`)).body.Duration).toBeNull();
    // within the tolerance: accepted
    expect((await post('/cati/callhistory', call(soon()))).status).toBe(201);
  });

  it('a batch with one future record stores nothing at all, not even a new break type', async () => {
    const calls = await count('/cati/callhistory');
    const r = await post('/cati/breakhistory', {
      value: [
        { Time: ago(3), InterviewerId: anna, BreakTypeId: 77, BreakTypeName: 'Never stored', Duration: 60 },
        { Time: future(), InterviewerId: anna, BreakTypeId: 77, BreakTypeName: 'Never stored', Duration: 60 },
      ],
    });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/^Record 1: Time/);
    expect((await t.json('GET', '/cati/breaktypes(77)')).status).toBe(404);
    expect((await t.json('GET', `/cati/breakhistory?$filter=BreakTypeId eq 77`)).body.value).toEqual([]);
    const bad = await post('/cati/callhistory', { value: [call(ago(1)), call(future())] });
    expect(bad.status).toBe(400);
    expect(await count('/cati/callhistory')).toBe(calls);
  });
});
