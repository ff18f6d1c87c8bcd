import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT } from '../helpers/cli-server.ts';
import { startTestServer, testDatabase, type TestServer } from '../helpers/server.ts';
import { openEvents } from '../helpers/sse.ts';

// docs/people.md#permissions: cati_read reaches every side-effect-free read under /cati/ and GET /events, nothing else.
let t: TestServer;
let readKey: string;
let itemId: number;
let interviewerId: number;

const as = (key: string) => ({ key });

beforeAll(async () => {
  t = await startTestServer();
  // The key CLI makes the key (on the server's own database), before any request.
  const database = await testDatabase(t.dataDir);
  const r = spawnSync(
    process.execPath,
    [...CLI, 'keys', '--data-dir', t.dataDir, ...(database ? ['--database', database] : []), 'create', '--name', 'excel', '--permissions', 'cati_read'],
    { encoding: 'utf8', cwd: ROOT },
  );
  expect(r.status, r.stderr).toBe(0);
  readKey = r.stdout.trim().split('\n').at(-1)!;
  // After the (slow) CLI: no kept-alive connection of before it is reused as the server closes it.
  itemId = (await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '0612345678' } })).body.Id;
  interviewerId = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'read.only' } })).body.InterviewerId;
  await t.json('POST', '/cati/surveys', { body: { SurveyId: 'p9101', SurveyName: 'Read' } });
});
afterAll(() => t.close());

describe('a cati_read key', () => {
  it.each([
    '/cati/',
    '/cati/$metadata',
    '/cati/blacklist',
    '/cati/blacklist?$top=1&$count=true',
    '/cati/blacklist/$count',
    '/cati/blacklist(ID)',
    "/cati/blacklist/Controller.Check(telephoneNumber='0612345678')",
    '/cati/interviewers',
    '/cati/interviewers(IV)',
    '/cati/callhistory?$apply=aggregate($count as N)',
    "/cati/surveys('p9101')/Controller.GetBasicProperties()",
    "/cati/surveys('p9101')/Controller.GetAssignments(callCenterId=1)",
    '/cati/groups(1)/Controller.GetInterviewers(callCenterId=1)',
    '/cati/callhistorywithvariables',
    '/cati/blacklist?$format=csv',
    '/admin/settings',
  ])('GET %s → 200', async (path) => {
    const url = path.replace('ID', String(itemId)).replace('IV', String(interviewerId)).replace(/ /g, '%20');
    const res = await t.request('GET', url, as(readKey));
    expect(res.status, await res.clone().text()).toBe(200);
    await res.arrayBuffer();
  });

  it('reads with Basic credentials as Excel and Power BI send them', async () => {
    const basic = `Basic ${Buffer.from(`excel:${readKey}`).toString('base64')}`;
    const res = await t.request('GET', '/cati/blacklist', { headers: { authorization: basic } });
    expect(res.status).toBe(200);
    expect((await res.json()).value.length).toBe(1);
  });

  it.each([
    ['POST', '/cati/blacklist', { TelephoneNumber: '111' }],
    ['PUT', '/cati/blacklist(ID)', { Comment: 'x' }],
    ['PATCH', '/cati/blacklist(ID)', { Comment: 'x' }],
    ['DELETE', '/cati/blacklist(ID)', undefined],
    ['POST', '/cati/blacklist/Controller.Import', { BlackListItems: ['222'] }],
    ['GET', '/cati/interviewers(IV)/Controller.Lock()', undefined],
    ['GET', "/cati/interviewers(IV)/Controller.AssignOnSurvey(surveyId='p9101')", undefined],
    ['GET', '/cati/interviewers(IV)/Controller.CleanAssignments()', undefined],
    ['POST', '/cati/interviewerproperties', { Name: 'not.me' }],
    ['POST', '/cati/callhistory', { Time: '2026-11-02T09:00:00Z', SurveyId: 'p9101', TelephoneNumber: '1', Duration: 1, WaitingTime: 0 }],
    ['GET', '/optout/lists', undefined],
    ['GET', '/admin/keys', undefined],
    ['PATCH', '/admin/settings', { PhoneRegion: 'DE' }],
    ['GET', '/admin/settings/phone-region-preview?region=DE', undefined],
  ])('%s %s → 403, nothing changes', async (method, path, body) => {
    const url = path.replace('ID', String(itemId)).replace('IV', String(interviewerId));
    const r = await t.json(method, url, { body, key: readKey });
    expect(r.status).toBe(403);
    expect((await t.json('GET', `/cati/blacklist(${itemId})`)).body).toMatchObject({ Comment: null, '@odata.etag': 'W/"1"' });
    expect((await t.json('GET', `/cati/interviewers(${interviewerId})`)).body.IsLocked).toBe(false);
    expect((await t.json('GET', '/cati/blacklist?$count=true')).body['@odata.count']).toBe(1);
  });

  it('opens GET /events', async () => {
    const s = await openEvents(t.url, readKey);
    expect(s.status).toBe(200);
    s.close();
  });
});

describe('cati_administrate and company_administrate imply cati_read', () => {
  it('a cati_administrate key opens /events; a key without any CATI permission gets 403 there and on reads', async () => {
    const { key: admin } = await t.server.ctx.keys.create('admin', ['cati_administrate']);
    const s = await openEvents(t.url, admin);
    expect(s.status).toBe(200);
    s.close();
    const { key: mailer } = await t.server.ctx.keys.create('mailer', ['optout_administrate']);
    const refused = await openEvents(t.url, mailer);
    expect(refused.status).toBe(403);
    refused.close();
    expect((await t.request('GET', '/cati/blacklist', as(mailer))).status).toBe(403);
    expect((await t.request('GET', '/cati/', as(mailer))).status).toBe(403);
  });

  it('a company_administrate key reads', async () => {
    const { key } = await t.server.ctx.keys.create('company', ['company_administrate']);
    expect((await t.request('GET', '/cati/blacklist/$count', as(key))).status).toBe(200);
  });
});
