import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let integrateKey: string;
let adminKey: string;

const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const post = (path: string, body: unknown) => t.json('POST', path, { body, key: integrateKey });
const floorRow = async (sessionId: number) => {
  const r = await t.json('GET', `/cati/floor?$filter=SessionId eq ${sessionId}`);
  expect(r.status).toBe(200);
  return r.body.value[0] as Record<string, unknown> | undefined;
};
let n = 0;
/** A new interviewer (optionally in a call centre) logged in `loginMinutesAgo` minutes ago; answers ids. */
async function loggedIn(loginMinutesAgo: number, callCenterId = 1): Promise<{ interviewer: number; session: number; login: number }> {
  const interviewer = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: `agent${++n}`, DisplayName: `Agent ${n}`, CallCenterId: callCenterId } })).body.InterviewerId;
  const login = Date.now() - loginMinutesAgo * MIN;
  const session = (await post('/cati/interviewersessionhistory', { InterviewerId: interviewer, CallCenterId: callCenterId, LoginTime: iso(login) })).body.value[0];
  return { interviewer, session, login };
}
const call = (interviewer: number, time: number, extra: Record<string, unknown> = {}) =>
  post('/cati/callhistory', { Time: iso(time), SurveyId: 'p1', InterviewerId: interviewer, TelephoneNumber: '311', ...extra }).then((r) => {
    expect(r.status).toBe(201);
    return r.body.value[0] as number;
  });
const brk = (interviewer: number, time: number, extra: Record<string, unknown> = {}) =>
  post('/cati/breakhistory', { Time: iso(time), InterviewerId: interviewer, BreakTypeId: 1, BreakTypeName: 'Coffee', ...extra }).then((r) => {
    expect(r.status).toBe(201);
    return r.body.value[0] as number;
  });

beforeAll(async () => {
  t = await startTestServer({ staleSessionHours: 2 });
  integrateKey = (await t.server.ctx.keys.create('dialer', ['cati_integrate'])).key;
  adminKey = (await t.server.ctx.keys.create('supervisor', ['cati_administrate'])).key;
  await post('/cati/surveys', { SurveyId: 'p1', SurveyName: 'One', State: 'Open' });
  await post('/cati/surveys', { SurveyId: 'p2', SurveyName: 'Two', State: 'Open' });
});
afterAll(() => t.close());

describe('/cati/floor: one row per open, non-stale session', () => {
  it('Waiting since LoginTime right after login, with the interviewer\'s names and lock state', async () => {
    const { interviewer, session, login } = await loggedIn(10);
    const row = await floorRow(session);
    expect(row).toEqual({
      SessionId: session, InterviewerId: interviewer, Name: `agent${n}`, DisplayName: `Agent ${n}`, CallCenterId: 1, LoginTime: iso(login),
      State: 'Waiting', StateSince: iso(login), BreakTypeId: null, BreakTypeName: null, BreakOverLimit: false, SurveyId: null,
      CallsToday: 0, CompletesToday: 0, IsLocked: false,
    });
    await t.json('GET', `/cati/interviewers(${interviewer})/Controller.Lock()`, { key: adminKey });
    expect((await floorRow(session))!.IsLocked).toBe(true);
  });

  it('OnCall since the open call\'s Time, its survey; Waiting after it closes, since its end; SurveyId stays the last call\'s', async () => {
    const { interviewer, session, login } = await loggedIn(30);
    await call(interviewer, login + 2 * MIN, { Duration: 60, SurveyId: 'p2' });
    const openAt = Date.now() - 3 * MIN;
    const open = await call(interviewer, openAt, { Duration: null, SurveyId: 'p1' });
    expect(await floorRow(session)).toMatchObject({ State: 'OnCall', StateSince: iso(openAt), SurveyId: 'p1' });
    await t.json('PATCH', `/cati/callhistory(${open})`, { body: { Duration: 90, ExtendedStatus: 2, WaitingTime: 30 }, key: integrateKey });
    // WaitingTime is the wait before the call: it does not extend it.
    expect(await floorRow(session)).toMatchObject({ State: 'Waiting', StateSince: iso(openAt + 90_000), SurveyId: 'p1' });
  });

  it('OnBreak wins over an open call; BreakTypeName from /cati/breaktypes (renamed); over limit when longer than MaxMinutes', async () => {
    const { interviewer, session } = await loggedIn(60);
    await call(interviewer, Date.now() - 40 * MIN, { Duration: null });
    const breakAt = Date.now() - 20 * MIN;
    const b = await brk(interviewer, breakAt, { BreakTypeId: 9, BreakTypeName: 'Lunch' });
    expect(await floorRow(session)).toMatchObject({ State: 'OnBreak', StateSince: iso(breakAt), BreakTypeId: 9, BreakTypeName: 'Lunch', BreakOverLimit: false });
    await t.json('PATCH', '/cati/breaktypes(9)', { body: { Name: 'Lunch break', MaxMinutes: 30 }, key: adminKey });
    expect(await floorRow(session)).toMatchObject({ BreakTypeName: 'Lunch break', BreakOverLimit: false });
    await t.json('PATCH', '/cati/breaktypes(9)', { body: { MaxMinutes: 15 }, key: adminKey });
    expect(await floorRow(session)).toMatchObject({ BreakOverLimit: true });
    const over = (await t.json('GET', '/cati/floor?$filter=BreakOverLimit eq true&$select=SessionId')).body.value;
    expect(over).toContainEqual({ SessionId: session });
    await t.json('PATCH', `/cati/breakhistory(${b})`, { body: { Duration: 600 }, key: integrateKey });
    expect(await floorRow(session)).toMatchObject({ State: 'OnCall', BreakTypeId: null, BreakTypeName: null, BreakOverLimit: false });
  });

  it('Waiting after a break: since the later end of the last call or break', async () => {
    const { interviewer, session, login } = await loggedIn(60);
    await call(interviewer, login + 5 * MIN, { Duration: 120 });
    await brk(interviewer, login + 10 * MIN, { Duration: 300 });
    expect(await floorRow(session)).toMatchObject({ State: 'Waiting', StateSince: iso(login + 15 * MIN) });
  });

  it('a closed session leaves the floor; a new login replaces the previous row', async () => {
    const { interviewer, session } = await loggedIn(30);
    expect(await floorRow(session)).toBeDefined();
    const next = (await post('/cati/interviewersessionhistory', { InterviewerId: interviewer, LoginTime: iso(Date.now() - MIN) })).body.value[0];
    expect(await floorRow(session)).toBeUndefined();
    expect(await floorRow(next)).toMatchObject({ State: 'Waiting' });
    await t.json('PATCH', `/cati/interviewersessionhistory(${next})`, { body: { LogoutTime: iso(Date.now()) }, key: integrateKey });
    expect(await floorRow(next)).toBeUndefined();
  });

  it('a session without activity for --stale-session-hours (2 here) is stale and off the floor, judged by record times', async () => {
    const quiet = await loggedIn(3 * 60);
    expect(await floorRow(quiet.session)).toBeUndefined();
    const busy = await loggedIn(3 * 60);
    await call(busy.interviewer, Date.now() - 150 * MIN, { Duration: 60 });
    expect(await floorRow(busy.session)).toBeUndefined(); // its last activity ended 149 minutes ago
    await call(busy.interviewer, Date.now() - 119 * MIN, { Duration: 30 });
    expect(await floorRow(busy.session)).toBeDefined();
    const longCall = await loggedIn(5 * 60);
    await call(longCall.interviewer, Date.now() - 4 * 60 * MIN, { Duration: 3 * 3600 }); // started 4 h ago, ended 1 h ago
    expect(await floorRow(longCall.session)).toBeDefined();
    const onBreak = await loggedIn(4 * 60);
    await brk(onBreak.interviewer, Date.now() - 3 * 60 * MIN); // an open break started 3 h ago: its start is the last activity
    expect(await floorRow(onBreak.session)).toBeUndefined();
  });
});

describe('CallsToday / CompletesToday in the centre\'s today', () => {
  /** The calendar date of an instant in a zone (an oracle independent of the server's arithmetic). */
  const localDate = (zone: string, ms: number) => new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(ms);

  for (const zone of ['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Asia/Kathmandu']) {
    it(`counts the interviewer's calls (open ones too) whose Time falls in today in ${zone}`, async () => {
      const cc = (await t.json('POST', '/cati/callcenters', { body: { Name: `Centre ${zone}`, TimeZone: zone }, key: adminKey })).body.CallCenterId;
      const { interviewer, session } = await loggedIn(60, cc);
      const now = Date.now();
      const hoursAgo = [0.5, 2, 5, 9, 13, 17, 21, 26, 30];
      for (const h of hoursAgo) await call(interviewer, now - h * 3_600_000, { Duration: 60, ExtendedStatus: h < 10 ? 1 : 5, CallCenterId: cc });
      await call(interviewer, now - MIN, { Duration: null, CallCenterId: cc });
      const today = localDate(zone, Date.now());
      const inToday = hoursAgo.filter((h) => localDate(zone, now - h * 3_600_000) === today);
      // The open call started a minute ago: in the minute after the zone's midnight it is yesterday's (a CI run at
      // 11:00 UTC, midnight in Pago Pago, expected it counted).
      const openInToday = localDate(zone, now - MIN) === today ? 1 : 0;
      const row = await floorRow(session);
      expect(localDate(zone, Date.now()), 'the test crossed midnight').toBe(today);
      expect(row).toMatchObject({ CallsToday: inToday.length + openInToday, CompletesToday: inToday.filter((h) => h < 10).length });
    });
  }

  it('completes follow /cati/extendedstatuses at the time of reading (edits apply at once)', async () => {
    const { interviewer, session } = await loggedIn(20);
    // Both calls in today (centre 1 has no zone: the server's, this process's): not before its midnight.
    const midnight = new Date().setHours(0, 0, 0, 0);
    await call(interviewer, Math.max(Date.now() - 10 * MIN, midnight), { Duration: 60, ExtendedStatus: 1 });
    await call(interviewer, Math.max(Date.now() - 5 * MIN, midnight + 1), { Duration: 60, ExtendedStatus: 77 });
    expect(await floorRow(session)).toMatchObject({ CallsToday: 2, CompletesToday: 1 });
    await t.json('POST', '/cati/extendedstatuses', { body: { Code: 77, Name: 'Completed (short form)', Category: 'Complete' }, key: adminKey });
    expect(await floorRow(session)).toMatchObject({ CompletesToday: 2 });
    await t.json('PATCH', '/cati/extendedstatuses(1)', { body: { Category: 'Other' }, key: adminKey });
    expect(await floorRow(session)).toMatchObject({ CompletesToday: 1 });
    await t.json('PATCH', '/cati/extendedstatuses(1)', { body: { Category: 'Complete' }, key: adminKey });
  });
});

describe('/cati/floor through the OData engine', () => {
  it('$filter, $orderby, $count and $select work on computed columns; $metadata describes the set', async () => {
    const r = await t.json('GET', "/cati/floor?$filter=State eq 'Waiting' and CallCenterId eq 1&$orderby=StateSince desc,SessionId&$count=true&$select=SessionId,State,StateSince");
    expect(r.status).toBe(200);
    expect(r.body['@odata.count']).toBe(r.body.value.length);
    expect(r.body.value.length).toBeGreaterThan(0);
    expect(r.body.value.every((x: { State: string }) => x.State === 'Waiting')).toBe(true);
    const since = r.body.value.map((x: { StateSince: string }) => x.StateSince);
    expect([...since].sort().reverse()).toEqual(since);
    expect((await t.json('GET', "/cati/floor?$filter=State eq 'Sleeping'")).status).toBe(400);
    expect((await t.json('GET', '/cati/floor?$filter=Colour eq 1')).body.error.message).toMatch(/Colour/);
    const md = await (await t.request('GET', '/cati/$metadata')).text();
    expect(md).toMatch(/<EntityType Name="FloorRow">/);
    expect(md).toMatch(/<EntitySet Name="floor" EntityType="Controller.FloorRow"/);
    expect(md).toMatch(/<EntitySet Name="breaktypes"/);
    expect(md).toMatch(/<EntitySet Name="extendedstatuses"/);
  });

  it('is read-only and for cati_administrate', async () => {
    expect((await t.json('POST', '/cati/floor', { body: {} })).status).toBe(405);
    expect((await t.json('GET', '/cati/floor', { key: integrateKey })).status).toBe(403);
    expect((await t.json('GET', '/cati/floor', { key: adminKey })).status).toBe(200);
  });
});
