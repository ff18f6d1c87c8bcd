import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let projectOnly: string; // optout_administrate limited to p1
let optoutAll: string; // optout_administrate, every project
let catiOnly: string;
beforeAll(async () => {
  t = await startTestServer({ companyId: 7 });
  projectOnly = (await t.server.ctx.keys.create('p1 only', ['optout_administrate'], ['p1'])).key;
  optoutAll = (await t.server.ctx.keys.create('all projects', ['optout_administrate'])).key;
  catiOnly = (await t.server.ctx.keys.create('cati', ['cati_administrate'])).key;
});
afterAll(() => t.close());

describe('POST /optout/lists', () => {
  it('creates the company-level list for an empty or absent projectId, idempotently', async () => {
    const a = await t.json('POST', '/optout/lists', { body: {} });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ id: expect.any(Number), companyId: 7, projectId: null, language: null });
    const b = await t.json('POST', '/optout/lists', { body: { projectId: '' } });
    const c = await t.request('POST', '/optout/lists');
    expect(b.body).toEqual(a.body);
    expect(await c.json()).toEqual(a.body);
  });

  it('creates a project-level list and answers the same list again', async () => {
    const a = await t.json('POST', '/optout/lists', { body: { projectId: 'p1' } });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ companyId: 7, projectId: 'p1' });
    const b = await t.json('POST', '/optout/lists', { body: { projectId: 'p1' } });
    expect(b.body.id).toBe(a.body.id);
  });

  it.each([['P1'], ['p'], ['x123'], ['p12a'], [' p1']])('refuses projectId %j with 400', async (projectId) => {
    const r = await t.json('POST', '/optout/lists', { body: { projectId } });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/projectId/);
  });

  it('refuses a non-string projectId and a non-object body with 400', async () => {
    expect((await t.json('POST', '/optout/lists', { body: { projectId: 5 } })).status).toBe(400);
    expect((await t.json('POST', '/optout/lists', { body: ['p1'] })).status).toBe(400);
  });

  it('needs company_administrate for the company-level list (403)', async () => {
    const r = await t.json('POST', '/optout/lists', { body: {}, key: optoutAll });
    expect(r.status).toBe(403);
    expect(r.body.message).toMatch(/company_administrate/);
  });

  it('lets optout_administrate create lists only inside its project limit', async () => {
    expect((await t.json('POST', '/optout/lists', { body: { projectId: 'p1' }, key: projectOnly })).status).toBe(200);
    expect((await t.json('POST', '/optout/lists', { body: { projectId: 'p2' }, key: projectOnly })).status).toBe(403);
    expect((await t.json('POST', '/optout/lists', { body: { projectId: 'p2' }, key: optoutAll })).status).toBe(200);
    expect((await t.json('POST', '/optout/lists', { body: { projectId: 'p3' }, key: catiOnly })).status).toBe(403);
  });

  it('is 401 with an empty body without a key', async () => {
    const r = await t.request('POST', '/optout/lists', { body: {}, key: null });
    expect(r.status).toBe(401);
    expect(await r.text()).toBe('');
  });
});

describe('GET /optout/lists', () => {
  it('answers the company list without projectId and the project list with one', async () => {
    const company = await t.json('POST', '/optout/lists', { body: {} });
    expect((await t.json('GET', '/optout/lists')).body).toEqual(company.body);
    const p1 = await t.json('POST', '/optout/lists', { body: { projectId: 'p1' } });
    expect((await t.json('GET', '/optout/lists?projectId=p1')).body).toEqual(p1.body);
  });

  it('is 404 (never 400) for a project without a list or a malformed projectId', async () => {
    expect((await t.json('GET', '/optout/lists?projectId=p999')).status).toBe(404);
    expect((await t.json('GET', '/optout/lists?projectId=nonsense')).status).toBe(404);
    expect((await t.json('GET', '/optout/lists?projectId=p1&projectId=p2')).status).toBe(404);
  });

  it('is 403 for a list outside the key’s permission, before looking whether it exists', async () => {
    expect((await t.json('GET', '/optout/lists', { key: optoutAll })).status).toBe(403);
    expect((await t.json('GET', '/optout/lists?projectId=p2', { key: projectOnly })).status).toBe(403);
    expect((await t.json('GET', '/optout/lists?projectId=p777', { key: projectOnly })).status).toBe(403);
    expect((await t.json('GET', '/optout/lists?projectId=p1', { key: projectOnly })).status).toBe(200);
  });
});

describe('routes under /optout/lists/{optOutListId}', () => {
  it.each(['0', '-1', 'abc', '1.5', '9223372036854775808', '99999999999999999999'])('refuses list id %j with 400', async (id) => {
    const r = await t.json('GET', `/optout/lists/${id}/emails`);
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/optOutListId/);
  });

  it('is 404 for an unknown list, also for a well-formed int64 beyond any assigned id', async () => {
    expect((await t.json('GET', '/optout/lists/424242/domains')).status).toBe(404);
    expect((await t.json('GET', '/optout/lists/9223372036854775807/domains')).status).toBe(404);
  });

  it('is 403 for an existing list the key may not administer', async () => {
    const company = (await t.json('POST', '/optout/lists', { body: {} })).body;
    const p2 = (await t.json('POST', '/optout/lists', { body: { projectId: 'p2' } })).body;
    const p1 = (await t.json('POST', '/optout/lists', { body: { projectId: 'p1' } })).body;
    expect((await t.json('GET', `/optout/lists/${company.id}/emails`, { key: optoutAll })).status).toBe(403);
    expect((await t.json('GET', `/optout/lists/${p2.id}/emails`, { key: projectOnly })).status).toBe(403);
    expect((await t.json('POST', `/optout/lists/${p2.id}/emails`, { key: projectOnly, body: { emailAddress: 'a@b.com' } })).status).toBe(403);
    expect((await t.json('GET', `/optout/lists/${p1.id}/emails`, { key: projectOnly })).status).toBe(200);
    expect((await t.json('GET', `/optout/lists/${p1.id}/emails`, { key: catiOnly })).status).toBe(403);
  });

  it('is 401 without a key', async () => {
    const r = await t.request('GET', '/optout/lists/1/emails', { key: null });
    expect(r.status).toBe(401);
    expect(await r.text()).toBe('');
  });
});
