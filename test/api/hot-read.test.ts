/**
 * The hot read (odata/service.ts `serveHotRead`, docs/cati-api.md#performance) answers `GET /cati/{set}?…` before
 * Express. It must answer exactly what the Express app answers, and hand everything else to it with nothing written.
 * Three listeners over one server's context: the hot read alone (599 when it declines), the Express app alone, and
 * the server itself. Every answer the hot read gives is compared with the app's: status, headers, body.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app.ts';
import { catiService } from '../../server/cati/index.ts';
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let hot: { url: string; server: Server };
let app: { url: string; server: Server };
let limitedKey: string;

async function listen(listener: RequestListener): Promise<{ url: string; server: Server }> {
  const server = createServer(listener);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const DAY = '2026-11-02';

beforeAll(async () => {
  t = await startTestServer();
  const post = async (path: string, body: unknown) => {
    const r = await t.json('POST', path, { body });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body;
  };
  await post('/cati/surveys', { SurveyId: 'p1', SurveyName: 'One', State: 'Open' });
  const anna = (await post('/cati/interviewerproperties', { Name: 'anna' })).InterviewerId;
  // More calls than one page (1,000), so the default page has a next link; a quote and a non-ASCII number.
  const calls = Array.from({ length: 1105 }, (_, i) => ({
    Time: new Date(Date.parse(`${DAY}T08:00:00Z`) + i * 7_001).toISOString(), SurveyId: 'p1', InterviewId: i + 1, InterviewerId: i % 3 ? anna : null,
    TelephoneNumber: i === 5 ? '31"20\u00e9' : `3120${String(i).padStart(7, '0')}`, ExtendedStatus: i % 5, Duration: i % 7 ? 60 + i : null, WaitingTime: 3,
  }));
  await post('/cati/callhistory', { value: calls });
  limitedKey = (await post('/admin/keys', { name: 'mailer', permissions: ['optout_administrate'] })).key;
  const service = catiService(t.server.ctx);
  hot = await listen((req: IncomingMessage, res: ServerResponse) => {
    void service.serveHotRead(req, res).then((done) => done || res.writeHead(599).end());
  });
  app = await listen(createApp(t.server.ctx));
});

afterAll(async () => {
  for (const s of [hot, app]) {
    s?.server.closeAllConnections();
    await new Promise((ok) => s?.server.close(ok));
  }
  await t?.close();
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function get(base: string, path: string, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(base + path, { headers });
  const out: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (k !== 'date' && k !== 'keep-alive' && k !== 'connection') out[k] = v;
  });
  // Links name the server they came from: compare them on one origin.
  return { status: res.status, headers: out, body: (await res.text()).replaceAll(base, 'ROOT') };
}

const bearer = { authorization: `Bearer ${TEST_API_KEY}` };
const day = `Time ge ${DAY}T00:00:00Z and Time lt ${DAY}T12:00:00Z`;

/** Requests the hot read answers: its answer must be the app's, byte for byte. */
const SERVED: [string, Record<string, string>?][] = [
  ['/cati/callhistory'],
  [`/cati/callhistory?$filter=${encodeURIComponent(day)}&$top=100`],
  [`/cati/callhistory?$filter=${encodeURIComponent(day)}&$orderby=Time desc&$top=7&$count=true`],
  ['/cati/callhistory?$select=Id,TelephoneNumber&$orderby=TelephoneNumber&$top=10'],
  ['/cati/callhistory?$select=Duration&$filter=Duration eq null&$skip=3&$top=5'],
  ['/cati/callhistory?$top=3&$format=json'],
  ['/cati/callhistory?$top=3', { accept: 'application/json;odata.metadata=none' }],
  ['/cati/callhistory?$top=3&$count=true', { accept: 'application/json;IEEE754Compatible=true' }],
  ['/cati/callhistory?$top=3', { accept: 'application/json;odata.metadata=full' }],
  ['/cati/callhistory?$top=0&$count=true'],
  ['/cati/callhistory?$top=1050&$skip=2'], // streamed in chunks
  ['/cati/callhistory?$top=1050&$orderby=Duration desc', { accept: 'application/json;odata.metadata=full' }],
  ['/cati/callhistory?$filter=Id gt 5000'],
  ['/cati/breakhistory'],
  ['/cati/interviewersessionhistory?$top=2'],
  ['/cati/callcenters'],
  ['/cati/callhistory?$top=2', { authorization: `Basic ${Buffer.from(`excel:${TEST_API_KEY}`).toString('base64')}` }], // Excel, Power BI
  ['/cati/interviewers?$select=Name'],
  ['/cati/blacklist?$top=2'],
  ['/cati/breaktypes'],
];

/** Requests the hot read hands to the app (each then answered by the app as always). */
const DECLINED: [string, Record<string, string>?][] = [
  ['/cati/callhistory?$filter=Nope eq 1'], // 400 from the app
  ['/cati/callhistory?$top=-1'],
  ['/cati/callhistory?$unknown=1'],
  ['/cati/callhistory?$format=csv'], // an export
  ['/cati/callhistory', { accept: 'text/csv' }],
  ['/cati/callhistory?$apply=aggregate($count as n)'],
  ['/cati/callhistory/$count'],
  ['/cati/callhistory(1)'],
  ['/cati/nosuchset'],
  ['/cati/surveys'], // a scoped set with a row hook
  ['/cati/callhistorywithvariables?$top=1'], // a handler of its own
  ['/cati/callhistory', {}], // no key: 401 from the app
  ['/cati/callhistory', { authorization: 'Bearer not-a-key-0123456789' }],
  ['/cati/callhistory', { authorization: `Basic ${Buffer.from('excel:not-a-key-0123456789').toString('base64')}` }],
];

describe('the hot read of a collection', () => {
  it('answers the generic collections exactly as the Express app does', async () => {
    for (const [path, headers = {}] of SERVED) {
      const h = { ...bearer, ...headers };
      const fast = await get(hot.url, path, h);
      expect(fast.status, `${path} was declined`).toBe(200);
      expect(fast, path).toEqual(await get(app.url, path, h));
    }
  });

  it('follows its own next link to the last page, as the app does', async () => {
    const first = await get(hot.url, '/cati/callhistory', bearer);
    const link = (JSON.parse(first.body) as { '@odata.nextLink': string })['@odata.nextLink'].replace('ROOT', '');
    expect(link).toMatch(/^\/cati\/callhistory\?%24skiptoken=/);
    const [fast, slow] = [await get(hot.url, link, bearer), await get(app.url, link, bearer)];
    expect(fast).toEqual(slow);
    expect(JSON.parse(fast.body).value).toHaveLength(105);
  });

  it('hands everything else to the app, having written nothing', async () => {
    for (const [path, headers = bearer] of [...DECLINED, ['/cati/callhistory', { authorization: `Bearer ${limitedKey}` }] as const]) {
      expect((await get(hot.url, path, headers)).status, path).toBe(599);
      expect((await get(app.url, path, headers)).status, path).not.toBe(599);
    }
    expect((await fetch(`${hot.url}/cati/callhistory`, { method: 'HEAD', headers: bearer })).status).toBe(599);
  });

  it('is what the server answers with: the same bytes through the full listener', async () => {
    const path = `/cati/callhistory?$filter=${encodeURIComponent(day)}&$top=100`;
    expect(await get(t.url, path, bearer)).toEqual(await get(app.url, path, bearer));
    const denied = await get(t.url, '/cati/callhistory', { authorization: `Bearer ${limitedKey}` });
    expect(denied.status).toBe(403);
  });
});
