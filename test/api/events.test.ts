import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.ts';
import { dataOf, openEvents, type SseStream } from '../helpers/sse.ts';

let t: TestServer;
let adminKey: string;
let integrateKey: string;
let stream: SseStream;

const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const post = (path: string, body: unknown) => t.json('POST', path, { body, key: integrateKey });
/** The next event of a type after position `from`. */
const next = (type: string, from: number, pred: (d: ReturnType<typeof dataOf>) => boolean = () => true) =>
  stream.waitFor((e) => e.event === type && pred(dataOf(e)), { from });

beforeAll(async () => {
  t = await startTestServer();
  adminKey = (await t.server.ctx.keys.create('supervisor', ['cati_administrate'])).key;
  integrateKey = (await t.server.ctx.keys.create('dialer', ['cati_integrate'])).key;
  await post('/cati/surveys', { SurveyId: 'p1', SurveyName: 'One', State: 'Open' });
  stream = await openEvents(t.url, adminKey);
});
afterAll(async () => {
  stream.close();
  await t.close();
});

describe('GET /events: who may listen', () => {
  it('answers text/event-stream at once (headers before any event) for cati_administrate and cati_integrate keys', async () => {
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers.get('cache-control')).toMatch(/no-cache/);
    const dialer = await openEvents(t.url, integrateKey);
    expect(dialer.status).toBe(200);
    dialer.close();
  });

  it('401 with WWW-Authenticate: Bearer without a key, with an unknown key or with Basic; 403 for other permissions', async () => {
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer nope-nope-nope-nope' }, { authorization: `Basic ${Buffer.from(`x:${adminKey}`).toString('base64')}` }]) {
      const r = await fetch(`${t.url}/events`, { headers });
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Bearer');
    }
    const optout = (await t.server.ctx.keys.create('lists', ['optout_administrate'])).key;
    expect((await fetch(`${t.url}/events`, { headers: { authorization: `Bearer ${optout}` } })).status).toBe(403);
    expect((await fetch(`${t.url}/events`, { method: 'POST', headers: { authorization: `Bearer ${adminKey}` } })).status).toBe(405);
  });
});

describe('events after commit', () => {
  /** An interviewer of this describe's own, so no test relies on one an earlier test created. */
  let agent: number;
  beforeAll(async () => {
    agent = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'agent' }, key: adminKey })).body.InterviewerId;
  });

  it('interviewer created / updated / locked / unlocked / deleted, with the record as /interviewers returns it', async () => {
    const from = stream.events.length;
    const anna = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'anna' }, key: adminKey })).body.InterviewerId;
    const created = dataOf(await next('interviewer', from, (d) => d.action === 'created' && d.id === anna));
    const { '@odata.context': _, ...got } = (await t.json('GET', `/cati/interviewers(${anna})`)).body;
    expect(created).toEqual({ action: 'created', id: anna, ...got });
    await t.json('PUT', `/cati/interviewerproperties(${anna})`, { body: { DisplayName: 'Anna B.' }, key: adminKey });
    expect(dataOf(await next('interviewer', from, (d) => d.action === 'updated'))).toMatchObject({ id: anna, DisplayName: 'Anna B.' });
    await t.json('GET', `/cati/interviewers(${anna})/Controller.Lock()`, { key: adminKey });
    expect(dataOf(await next('interviewer', from, (d) => d.action === 'locked'))).toMatchObject({ id: anna, IsLocked: true });
    await t.json('GET', `/cati/interviewers(${anna})/Controller.Unlock()`, { key: adminKey });
    expect(dataOf(await next('interviewer', from, (d) => d.action === 'unlocked'))).toMatchObject({ id: anna, IsLocked: false, LockedDate: null });
    const temp = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'temp' }, key: adminKey })).body.InterviewerId;
    await t.request('DELETE', `/cati/interviewerproperties(${temp})`, { key: adminKey });
    expect(dataOf(await next('interviewer', from, (d) => d.action === 'deleted'))).toMatchObject({ id: temp, Name: 'temp' });
  });

  it('sessions, calls and breaks: opened when posted open, created when posted closed, closed by PATCH or a new login', async () => {
    const from = stream.events.length;
    const s1 = (await post('/cati/interviewersessionhistory', { InterviewerId: agent, LoginTime: ago(30) })).body.value[0];
    expect(dataOf(await next('session', from))).toMatchObject({ action: 'opened', id: s1, SessionId: s1, LogoutTime: null });
    const s2login = ago(20);
    const s2 = (await post('/cati/interviewersessionhistory', { InterviewerId: agent, LoginTime: s2login })).body.value[0];
    expect(dataOf(await next('session', from, (d) => d.id === s1 && d.action === 'closed'))).toMatchObject({ LogoutTime: s2login });
    expect(dataOf(await next('session', from, (d) => d.id === s2))).toMatchObject({ action: 'opened' });

    const [c] = (await post('/cati/callhistory', { Time: ago(5), SurveyId: 'p1', InterviewerId: agent, TelephoneNumber: '311', Duration: null })).body.value;
    expect(dataOf(await next('call', from))).toMatchObject({ action: 'opened', id: c, Duration: null });
    await t.json('PATCH', `/cati/callhistory(${c})`, { body: { Duration: 40, ExtendedStatus: 1 }, key: integrateKey });
    const closed = dataOf(await next('call', from, (d) => d.action === 'closed'));
    const { '@odata.context': _, ...got } = (await t.json('GET', `/cati/callhistory(${c})`, { key: adminKey })).body;
    expect(closed).toEqual({ action: 'closed', id: c, ...got });
    const [c2] = (await post('/cati/callhistory', { Time: ago(4), SurveyId: 'p1', InterviewerId: agent, TelephoneNumber: '312', Duration: 10 })).body.value;
    expect(dataOf(await next('call', from, (d) => d.id === c2))).toMatchObject({ action: 'created', Duration: 10 });

    const [b] = (await post('/cati/breakhistory', { Time: ago(3), InterviewerId: agent, BreakTypeId: 1, BreakTypeName: 'Coffee', Duration: null })).body.value;
    expect(dataOf(await next('break', from))).toMatchObject({ action: 'opened', id: b, Duration: null, BreakTypeName: 'Coffee' });
    await t.json('PATCH', `/cati/breakhistory(${b})`, { body: { Duration: 60 }, key: integrateKey });
    expect(dataOf(await next('break', from, (d) => d.action === 'closed'))).toMatchObject({ id: b, Duration: 60 });
    await t.json('PATCH', `/cati/interviewersessionhistory(${s2})`, { body: { LogoutTime: ago(0) }, key: integrateKey });
    expect(dataOf(await next('session', from, (d) => d.id === s2 && d.action === 'closed'))).toMatchObject({ SessionId: s2 });
  });

  it('a refused write publishes nothing: the ids of the events around it are consecutive', async () => {
    const from = stream.events.length;
    await post('/cati/callhistory', { Time: ago(2), SurveyId: 'p1', InterviewerId: agent, TelephoneNumber: '1', Duration: 1 });
    const bad = await post('/cati/callhistory', { value: [{ Time: ago(2), SurveyId: 'p1', InterviewerId: agent, TelephoneNumber: '2', Duration: 1 }, { Time: 'never' }] });
    expect(bad.status).toBe(400);
    await post('/cati/callhistory', { Time: ago(2), SurveyId: 'p1', InterviewerId: agent, TelephoneNumber: '3', Duration: 1 });
    await stream.until(() => stream.events.length >= from + 2);
    const [a, b] = stream.events.slice(from);
    expect(dataOf(a!).TelephoneNumber).toBe('1');
    expect(dataOf(b!).TelephoneNumber).toBe('3');
    expect(BigInt(b!.id!) - BigInt(a!.id!)).toBe(1n);
  });

  it('blacklist created / updated / deleted, and one created per imported number', async () => {
    const from = stream.events.length;
    const item = (await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '3120555' }, key: adminKey })).body;
    expect(dataOf(await next('blacklist', from))).toMatchObject({ action: 'created', id: item.Id, TelephoneNumber: '3120555', Type: 'Equal' });
    await t.json('PUT', `/cati/blacklist(${item.Id})`, { body: { Comment: 'asked' }, key: adminKey });
    expect(dataOf(await next('blacklist', from, (d) => d.action === 'updated'))).toMatchObject({ id: item.Id, Comment: 'asked' });
    await t.request('DELETE', `/cati/blacklist(${item.Id})`, { key: adminKey });
    expect(dataOf(await next('blacklist', from, (d) => d.action === 'deleted'))).toMatchObject({ id: item.Id, TelephoneNumber: '3120555' });
    const before = stream.events.length;
    const imported = await t.json('POST', '/cati/blacklist/Controller.Import', { body: { BlackListItems: ['111', '222', 'x', '111'] }, key: adminKey });
    expect(imported.body).toMatchObject({ Added: 2, Duplicates: 1, Invalid: 1 });
    await stream.until(() => stream.events.slice(before).filter((e) => e.event === 'blacklist').length >= 2);
    expect(stream.events.slice(before).map((e) => dataOf(e).TelephoneNumber)).toEqual(['111', '222']);
    // Each imported number's record is the entity as GET answers it (etag, Created and Comment included).
    for (const e of stream.events.slice(before)) {
      const { action, id, ...record } = dataOf(e);
      expect(action).toBe('created');
      const { '@odata.context': _context, ...entity } = (await t.json('GET', `/cati/blacklist(${id as number})`, { key: adminKey })).body;
      expect(record).toEqual(entity);
    }
  });

  it('assignments created / deleted with SurveyId, ResourceId, IsGroup, CallCenterId', async () => {
    const from = stream.events.length;
    await t.json('GET', `/cati/interviewers(${agent})/Controller.AssignOnSurvey(surveyId='p1')`, { key: adminKey });
    expect(dataOf(await next('assignment', from))).toMatchObject({ action: 'created', SurveyId: 'p1', ResourceId: agent, IsGroup: false, CallCenterId: 1 });
    const g = (await t.json('POST', '/cati/groups', { body: { Name: 'Team' }, key: adminKey })).body.GroupId;
    await t.json('GET', `/cati/groups(${g})/Controller.AssignOnSurvey(surveyId='p1',callCenterId=1)`, { key: adminKey });
    expect(dataOf(await next('assignment', from, (d) => d.IsGroup === true))).toMatchObject({ action: 'created', ResourceId: g, CallCenterId: 1 });
    await t.json('GET', `/cati/interviewers(${agent})/Controller.DeAssignFromSurvey(surveyId='p1')`, { key: adminKey });
    expect(dataOf(await next('assignment', from, (d) => d.action === 'deleted'))).toMatchObject({ SurveyId: 'p1', ResourceId: agent, IsGroup: false });
    await t.request('DELETE', `/cati/groups(${g})`, { key: adminKey });
    expect(dataOf(await next('assignment', from, (d) => d.action === 'deleted' && d.IsGroup === true))).toMatchObject({ ResourceId: g });
    const mark = stream.events.length;
    await t.json('GET', `/cati/interviewers(${agent})/Controller.DeAssignFromSurvey(surveyId='p1')`, { key: adminKey }); // nothing to remove
    await t.json('GET', `/cati/interviewers(${agent})/Controller.AssignOnCall(surveyId='p1',interviewId=5)`, { key: adminKey });
    const onCall = dataOf(await next('assignment', mark));
    expect(onCall).toMatchObject({ action: 'created', InterviewId: 5 }); // the no-op before it announced nothing
  });
});

describe('Last-Event-ID', () => {
  it('replays the events after a known id with exactly the data first sent', async () => {
    const from = stream.events.length;
    for (const n of ['901', '902', '903']) await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: n }, key: adminKey });
    await stream.until(() => stream.events.length >= from + 3);
    const live = stream.events.slice(from, from + 3);
    const again = await openEvents(t.url, adminKey, { 'last-event-id': live[0]!.id! });
    await again.until(() => again.events.length >= 2);
    expect(again.events.slice(0, 2)).toEqual(live.slice(1));
    // and then live
    await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '904' }, key: adminKey });
    expect(dataOf(await again.waitFor((e) => e.event === 'blacklist' && dataOf(e).TelephoneNumber === '904'))).toMatchObject({ action: 'created' });
    again.close();
  });

  it('the latest id replays nothing; an unknown, older or garbage id gets `event: reset` with data {} and the latest id first', async () => {
    // An event of this test's own, so there is a latest id whatever ran before.
    await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '906' }, key: adminKey });
    await stream.waitFor((e) => e.event === 'blacklist' && dataOf(e).TelephoneNumber === '906');
    const latest = stream.events[stream.events.length - 1]!.id!;
    const current = await openEvents(t.url, adminKey, { 'last-event-id': latest });
    for (const bad of ['garbage', '1', String(BigInt(latest) + 5n), '-3']) {
      const s = await openEvents(t.url, adminKey, { 'last-event-id': bad });
      const first = await s.waitFor(() => true);
      expect(first, bad).toEqual({ id: latest, event: 'reset', data: '{}' });
      s.close();
    }
    await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '905' }, key: adminKey });
    const first = await current.waitFor(() => true);
    expect(first.event).toBe('blacklist');
    expect(BigInt(first.id!)).toBe(BigInt(latest) + 1n);
    current.close();
  });
});

describe('events published while no stream is open', () => {
  it('replay after Last-Event-ID with consecutive ids and the records as GET answers them', async () => {
    const small = await startTestServer();
    try {
      const first = await openEvents(small.url, TEST_API_KEY);
      await small.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '7700' } });
      const seen = await first.waitFor((e) => e.event === 'blacklist');
      first.close();
      await new Promise((resolve) => setTimeout(resolve, 300)); // the server sees the stream closed
      await small.json('POST', '/cati/blacklist/Controller.Import', { body: { BlackListItems: ['7701', '7702', '7701', '7703'] } });
      const again = await openEvents(small.url, TEST_API_KEY, { 'last-event-id': seen.id! });
      await again.until(() => again.events.length >= 3);
      expect(again.events.map((e) => BigInt(e.id!) - BigInt(seen.id!))).toEqual([1n, 2n, 3n]);
      for (const e of again.events) {
        const { action, id, ...record } = dataOf(e);
        expect(action).toBe('created');
        const { '@odata.context': _context, ...entity } = (await small.json('GET', `/cati/blacklist(${id as number})`)).body;
        expect(record).toEqual(entity);
      }
      again.close();
    } finally {
      await small.close();
    }
  });
});

describe('limits', () => {
  it('only the last N events replay (N = 10,000 by default; 5 here), older ids get a reset; ids are increasing decimals', async () => {
    const small = await startTestServer({ events: { heartbeatMs: 15_000, maxStreamsPerKey: 50, replayEvents: 5, maxBufferedBytes: 4 << 20 } });
    try {
      const s = await openEvents(small.url, TEST_API_KEY);
      await small.json('POST', '/cati/blacklist/Controller.Import', { body: { BlackListItems: Array.from({ length: 8 }, (_, i) => `4400${i}`) } });
      await s.until(() => s.events.length >= 8);
      const ids = s.events.map((e) => e.id!);
      expect(ids.every((id) => /^\d+$/.test(id))).toBe(true);
      expect(ids.map(BigInt).every((id, i, all) => i === 0 || id === all[i - 1]! + 1n)).toBe(true);
      const tooOld = await openEvents(small.url, TEST_API_KEY, { 'last-event-id': ids[1]! });
      expect((await tooOld.waitFor(() => true)).event).toBe('reset');
      const kept = await openEvents(small.url, TEST_API_KEY, { 'last-event-id': ids[3]! }); // ids[3..7] are the last 5
      await kept.until(() => kept.events.length >= 4);
      expect(kept.events.map((e) => e.id)).toEqual(ids.slice(4));
      for (const x of [s, tooOld, kept]) x.close();
    } finally {
      await small.close();
    }
  });

  it('a comment line every heartbeat keeps the stream open (15 s by default; 50 ms here)', async () => {
    const quick = await startTestServer({ events: { heartbeatMs: 50, maxStreamsPerKey: 50, replayEvents: 10_000, maxBufferedBytes: 4 << 20 } });
    try {
      const s = await openEvents(quick.url, TEST_API_KEY);
      await s.until(() => s.comments.filter((c) => c === 'keep-alive').length >= 2);
      s.close();
    } finally {
      await quick.close();
    }
  });

  it('at most 50 streams per key → 429; another key still gets its own; a closed stream frees its place', async () => {
    const own = await startTestServer();
    try {
      const key = (await own.server.ctx.keys.create('wall', ['cati_administrate'])).key;
      const streams: SseStream[] = [];
      for (let i = 0; i < 50; i++) streams.push(await openEvents(own.url, key));
      expect(streams.every((s) => s.status === 200)).toBe(true);
      const refused = await fetch(`${own.url}/events`, { headers: { authorization: `Bearer ${key}` } });
      expect(refused.status).toBe(429);
      expect((await refused.json()).message).toMatch(/50/);
      const other = await openEvents(own.url, TEST_API_KEY);
      expect(other.status).toBe(200);
      streams.pop()!.close();
      await streams[0]!.until(() => own.server.ctx.events.streamCount === 50);
      const again = await openEvents(own.url, key);
      expect(again.status).toBe(200);
      for (const s of [...streams, other, again]) s.close();
    } finally {
      await own.close();
    }
  });
});
