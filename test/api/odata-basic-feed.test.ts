import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.ts';

// docs/cati-api.md#basic: Basic credentials (any user, an API key as password) on side-effect-free reads under /cati/ only.
let t: TestServer;
let itemId: number;
let interviewerId: number;

const basic = (key: string, user = 'excel') => `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`;
const withBasic = (key = TEST_API_KEY, user?: string) => ({ headers: { authorization: basic(key, user) } });

beforeAll(async () => {
  t = await startTestServer();
  itemId = (await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '0612345678' } })).body.Id;
  interviewerId = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'basic.feed' } })).body.InterviewerId;
  await t.json('POST', '/cati/surveys', { body: { SurveyId: 'p8001', SurveyName: 'Feed' } });
});
afterAll(() => t.close());

describe('Basic credentials on side-effect-free reads', () => {
  it.each([
    '/cati/',
    '/cati/$metadata',
    '/cati/blacklist',
    '/cati/blacklist?$filter=Type eq \'Equal\'&$count=true',
    '/cati/blacklist/$count',
    "/cati/blacklist/Controller.Check(telephoneNumber='0612345678')",
    '/cati/groups(1)/Controller.GetInterviewers(callCenterId=1)',
    "/cati/surveys('p8001')/Controller.GetBasicProperties()",
  ])('GET %s → 200', async (path) => {
    const res = await t.request('GET', path.replace(/ /g, '%20'), withBasic());
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  });

  it('reads by key and HEAD work; any user name is fine, the password must be a valid key', async () => {
    expect((await t.request('GET', `/cati/blacklist(${itemId})`, withBasic(TEST_API_KEY, ''))).status).toBe(200);
    expect((await t.request('HEAD', '/cati/blacklist', withBasic(TEST_API_KEY, 'DOMAIN\\someone'))).status).toBe(200);
    const wrong = await t.json('GET', '/cati/blacklist', withBasic('not-a-key'));
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('a revoked key or one without the permission is refused as with Bearer', async () => {
    const { key, info } = await t.server.ctx.keys.create('mailer', ['optout_administrate']);
    expect((await t.json('GET', '/cati/blacklist', withBasic(key))).status).toBe(403);
    await t.server.ctx.keys.revoke(info.id);
    expect((await t.json('GET', '/cati/blacklist', withBasic(key))).status).toBe(401);
  });
});

describe('Basic credentials anywhere else → 401 with WWW-Authenticate: Bearer, nothing changes', () => {
  it.each([
    ['POST', '/cati/blacklist', { TelephoneNumber: '111' }],
    ['PUT', '/cati/blacklist(ID)', { Comment: 'x' }],
    ['PATCH', '/cati/blacklist(ID)', { Comment: 'x' }],
    ['DELETE', '/cati/blacklist(ID)', undefined],
    ['POST', '/cati/blacklist/Controller.Import', { BlackListItems: ['222'] }],
    ['GET', '/cati/interviewers(IV)/Controller.Lock()', undefined],
    ['GET', "/cati/interviewers(IV)/Controller.AssignOnSurvey(surveyId='p8001')", undefined],
    ['POST', '/cati/$metadata', {}],
  ])('%s %s', async (method, path, body) => {
    const url = path.replace('ID', String(itemId)).replace('IV', String(interviewerId));
    const r = await t.json(method, url, { ...withBasic(), body });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer');
    expect(r.body.error.code).toBe('Unauthorized');
    const item = await t.json('GET', `/cati/blacklist(${itemId})`);
    expect(item.body).toMatchObject({ Comment: null, '@odata.etag': 'W/"1"' });
    expect((await t.json('GET', `/cati/interviewers(${interviewerId})`)).body.IsLocked).toBe(false);
    expect((await t.json('GET', '/cati/blacklist/$count')).status).toBe(200);
  });

  it.each(['/optout/lists', '/admin/keys'])('GET %s (outside /cati/) → 401', async (path) => {
    const res = await t.request('GET', path, withBasic());
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });
});

describe('a Power Query-shaped request sequence', () => {
  // The headers Power Query's OData.Feed sends (public documentation and captures), with Basic credentials.
  const headers = {
    accept:
      'application/json;odata.metadata=minimal;q=1.0,application/json;odata=minimalmetadata;q=0.9,application/atomsvc+xml;q=0.8,' +
      'application/atom+xml;q=0.8,application/xml;q=0.7,text/plain;q=0.7',
    'odata-maxversion': '4.0',
    'odata-version': '4.0',
    authorization: basic(TEST_API_KEY, 'PowerBI'),
  };

  it('service document → $metadata → every listed set, following nextLink', async () => {
    const doc = await t.json('GET', '/cati/', { headers });
    expect(doc.status).toBe(200);
    expect(doc.headers.get('content-type')).toMatch(/^application\/json; odata.metadata=minimal/);
    expect(doc.headers.get('odata-version')).toBe('4.0');
    const names: string[] = doc.body.value.map((s: { name: string }) => s.name);
    expect(names).not.toContain('interviewerproperties'); // write-only: the navigator must not offer it
    const md = await t.request('GET', '/cati/$metadata', { headers });
    expect(md.status).toBe(200);
    expect(md.headers.get('content-type')).toMatch(/^application\/xml/);
    const xml = await md.text();
    for (const name of names) {
      expect(xml).toContain(`<EntitySet Name="${name}"`);
      // Power Query reads a table with $top paging and sometimes a count first.
      const count = await t.json('GET', `/cati/${name}?$count=true&$top=0${name === 'callhistorywithvariables' ? '&startTime=2026-01-01T00:00:00Z' : ''}`, { headers });
      expect(count.status, name).toBe(200);
      let next: string | undefined = `${t.url}/cati/${name}${name === 'callhistorywithvariables' ? '?startTime=2026-01-01T00:00:00Z' : ''}`;
      for (let page = 0; next && page < 5; page++) {
        const res = await fetch(next, { headers });
        expect(res.status, name).toBe(200);
        const body = (await res.json()) as { value: unknown[]; '@odata.nextLink'?: string; '@odata.context': string };
        expect(Array.isArray(body.value)).toBe(true);
        expect(body['@odata.context']).toContain(`${t.url}/cati/$metadata#`);
        next = body['@odata.nextLink'];
      }
    }
  });
});
