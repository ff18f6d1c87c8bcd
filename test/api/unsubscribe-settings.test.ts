import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let companyList: number;
let p1List: number;
let p2List: number;
let optoutP1Key: string;
let catiKey: string;

beforeAll(async () => {
  t = await startTestServer();
  const create = async (body: object) => (await t.json('POST', '/optout/lists', { body })).body.id as number;
  companyList = await create({});
  p1List = await create({ projectId: 'p1' });
  p2List = await create({ projectId: 'p2' });
  optoutP1Key = (await t.server.ctx.keys.create('mailer p1', ['optout_administrate'], ['p1'])).key;
  catiKey = (await t.server.ctx.keys.create('cati', ['cati_administrate'])).key;
});
afterAll(() => t.close());

describe('POST /optout/lists/{id}/unsubscribe-links', () => {
  const links = (id: number | string, body: unknown, key?: string | null) =>
    t.json('POST', `/optout/lists/${id}/unsubscribe-links`, { body, key });

  it('answers a key and a URL for a project key on its own project list', async () => {
    const r = await links(p1List, { emailAddress: 'a@example.com' }, optoutP1Key);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['key', 'url']);
    expect(r.body.key).toMatch(/^[A-Za-z0-9_-]{40,}$/);
  });

  it('applies the list permission rules', async () => {
    expect((await links(p2List, { emailAddress: 'a@example.com' }, optoutP1Key)).status).toBe(403);
    expect((await links(companyList, { emailAddress: 'a@example.com' }, optoutP1Key)).status).toBe(403);
    expect((await links(p1List, { emailAddress: 'a@example.com' }, catiKey)).status).toBe(403);
    expect((await links(companyList, { emailAddress: 'a@example.com' })).status).toBe(200);
    const anonymous = await links(p1List, { emailAddress: 'a@example.com' }, null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toBeUndefined();
  });

  it('answers 404 for an unknown list and 400 for a malformed id', async () => {
    const unknown = await links(987654, { emailAddress: 'a@example.com' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toMatch(/987654/);
    for (const id of ['abc', '0', '-1', '1.5', '99999999999999999999']) {
      const r = await links(id, { emailAddress: 'a@example.com' });
      expect(r.status, id).toBe(400);
      expect(r.body.message).toMatch(/optOutListId/);
    }
  });

  it('answers 400 with a message for a bad body', async () => {
    const cases: [unknown, RegExp][] = [
      [{ emailAddress: 'not an address' }, /Invalid e-mail address 'not an address'/],
      [{ emailAddress: 'Name <a@example.com>' }, /display names/],
      [{ emailAddress: 42 }, /string field emailAddress/],
      [{}, /string field emailAddress/],
      [[], /JSON object/],
      [{ emailAddress: 'a@example.com', projectId: 'x9' }, /projectId/],
      [{ emailAddress: 'a@example.com', projectId: 7 }, /projectId/],
    ];
    for (const [body, message] of cases) {
      const r = await links(p1List, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toMatch(message);
    }
    const none = await t.json('POST', `/optout/lists/${p1List}/unsubscribe-links`);
    expect(none.status).toBe(400);
    const other = await links(p1List, { emailAddress: 'a@example.com', projectId: 'p2' });
    expect(other.status).toBe(400);
    expect(other.body.message).toMatch(/p1/);
  });

  it('matches body fields case-insensitively like the rest of the opt-out API', async () => {
    expect((await links(p1List, { EmailAddress: 'a@example.com', ProjectId: 'p1' })).status).toBe(200);
  });

  it('builds the URL on --public-url without doubling the slash', async () => {
    const pub = await startTestServer({ publicUrl: 'https://mail.example.com/news/' });
    try {
      const id = (await pub.json('POST', '/optout/lists', { body: {} })).body.id as number;
      const r = await pub.json('POST', `/optout/lists/${id}/unsubscribe-links`, { body: { emailAddress: 'a@example.com' } });
      expect(r.body.url).toBe(`https://mail.example.com/news/unsubscribe?key=${r.body.key}`);
    } finally {
      await pub.close();
    }
  });
});

describe('GET/PUT /optout/settings', () => {
  it('answers the defaults, then changes only the fields sent', async () => {
    const initial = await t.json('GET', '/optout/settings');
    expect(initial.status).toBe(200);
    expect(Object.keys(initial.body).sort()).toEqual(['companyName', 'confirmPageText', 'defaultLanguage', 'defaultPageText', 'resultPageText', 'texts']);
    expect(initial.body.companyName).toBe('');

    const put = await t.json('PUT', '/optout/settings', { body: { companyName: 'Acme Research', resultPageText: 'Done.\n\nThank you.' } });
    expect(put.status).toBe(200);
    const en = { ...initial.body.texts.en, resultPageText: 'Done.\n\nThank you.' };
    expect(put.body).toEqual({ ...initial.body, companyName: 'Acme Research', resultPageText: 'Done.\n\nThank you.', texts: { ...initial.body.texts, en } });
    expect((await t.json('GET', '/optout/settings')).body).toEqual(put.body);

    const page = await (await fetch(`${t.url}/unsubscribe`)).text();
    expect(page).toContain('<p class="company">Acme Research</p>');
    expect(page).toContain('<title>Unsubscribe – Acme Research</title>');

    const reset = await t.json('PUT', '/optout/settings', { body: { resultPageText: null } });
    expect(reset.body).toEqual({ ...initial.body, companyName: 'Acme Research' });
  });

  it('answers 400 naming the problem and changes nothing', async () => {
    const before = (await t.json('GET', '/optout/settings')).body;
    const cases: [unknown, RegExp][] = [
      [{ companyName: 5 }, /'companyName' must be a string/],
      [{ companyName: 'x'.repeat(201) }, /'companyName' is 201 characters long; at most 200/],
      [{ confirmPageText: 'y'.repeat(4001) }, /at most 4000/],
      [{ defaultPageText: '   ' }, /'defaultPageText' must not be empty/],
      [{ resultPageText: 'bell\u0007' }, /control character/],
      [{ colour: 'red' }, /Unknown field 'colour'/],
      [{ companyName: 'Ok', bogus: 1 }, /Unknown field 'bogus'/],
      [['companyName'], /JSON object/],
      ['text', /JSON object/],
    ];
    for (const [body, message] of cases) {
      const r = await t.json('PUT', '/optout/settings', { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toMatch(message);
    }
    expect((await t.json('PUT', '/optout/settings')).status).toBe(400);
    expect((await t.json('GET', '/optout/settings')).body).toEqual(before);
  });

  it('needs company_administrate', async () => {
    expect((await t.json('GET', '/optout/settings', { key: optoutP1Key })).status).toBe(403);
    expect((await t.json('PUT', '/optout/settings', { key: optoutP1Key, body: { companyName: 'x' } })).status).toBe(403);
    expect((await t.json('GET', '/optout/settings', { key: null })).status).toBe(401);
  });

  it('refuses other methods with 405', async () => {
    const r = await t.json('DELETE', '/optout/settings');
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, HEAD, PUT');
  });
});
