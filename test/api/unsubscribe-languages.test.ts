/**
 * Unsubscribe pages in the respondent's language (docs/unsubscribe.md#languages): a list's `language`, else the
 * request's Accept-Language (q-values honoured) among en, nl, de, else the company's `defaultLanguage`, else en;
 * per-language texts through PUT /optout/settings; `Content-Language` and `<html lang>`; the one-click POST in the
 * list's language; markup escaped in every language; unknown languages → 400 naming them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let plainList: number;

async function page(method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  const res = await fetch(t.url + path, { method, headers, body, redirect: 'manual' });
  return { status: res.status, headers: res.headers, html: await res.text() };
}
const htmlLang = (html: string) => /<html lang="([^"]+)">/.exec(html)?.[1];
async function linkFor(listId: number, emailAddress: string): Promise<string> {
  const r = await t.json('POST', `/optout/lists/${listId}/unsubscribe-links`, { body: { emailAddress } });
  expect(r.status).toBe(200);
  return r.body.key;
}

beforeAll(async () => {
  t = await startTestServer();
  plainList = (await t.json('POST', '/optout/lists', { body: { projectId: 'p100' } })).body.id;
});
afterAll(() => t.close());

describe('the language of a page without a list language', () => {
  it('follows Accept-Language among en, nl, de (q-values, region subtags), else en', async () => {
    const cases: [string | undefined, string, RegExp][] = [
      [undefined, 'en', /<h1>Unsubscribe<\/h1>/],
      ['nl-NL,nl;q=0.9,en;q=0.8', 'nl', /<h1>Afmelden<\/h1>/],
      ['de-CH', 'de', /<h1>Abmelden<\/h1>/],
      ['fr, en;q=0.3, de;q=0.7', 'de', /Abmeldelink/],
      ['en;q=0.2, nl;q=0.9', 'nl', /afmeldlink/],
      ['nl;q=0, de;q=0.1', 'de', /Abmelden/],
      ['fr, es', 'en', /unsubscribe link/],
    ];
    for (const [accept, lang, text] of cases) {
      const r = await page('GET', '/unsubscribe', accept ? { 'accept-language': accept } : {});
      expect(r.status, accept).toBe(200);
      expect(r.headers.get('content-language'), accept).toBe(lang);
      expect(htmlLang(r.html), accept).toBe(lang);
      expect(r.html, accept).toMatch(text);
    }
  });

  it('the confirm page, the one-click POST and the 404 page speak the requested language', async () => {
    const key = await linkFor(plainList, 'jan@example.nl');
    const confirm = await page('GET', `/unsubscribe?key=${key}`, { 'accept-language': 'nl' });
    expect(confirm.html).toContain('<p class="label">E-mailadres:</p>');
    expect(confirm.html).toContain('<button type="submit">Afmelden</button>');
    expect(confirm.headers.get('content-language')).toBe('nl');
    const bad = await page('GET', '/unsubscribe?key=nonsense', { 'accept-language': 'de' });
    expect(bad.status).toBe(404);
    expect(bad.html).toContain('<h1>Link ungültig</h1>');
    expect(htmlLang(bad.html)).toBe('de');
  });
});

describe("a list's language", () => {
  it('POST/PATCH /optout/lists take language, return it, and refuse an unknown one with 400 naming it', async () => {
    const created = await t.json('POST', '/optout/lists', { body: { projectId: 'p200', language: 'nl' } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ projectId: 'p200', language: 'nl' });
    expect((await t.json('GET', '/optout/lists?projectId=p200')).body.language).toBe('nl');
    const patched = await t.json('PATCH', `/optout/lists/${created.body.id}`, { body: { language: 'de' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...created.body, language: 'de' });
    expect((await t.json('GET', `/optout/lists/${created.body.id}`)).body.language).toBe('de');
    const bad = await t.json('PATCH', `/optout/lists/${created.body.id}`, { body: { language: 'fr' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/'fr'/);
    expect((await t.json('POST', '/optout/lists', { body: { projectId: 'p201', language: 'klingon' } })).status).toBe(400);
    expect((await t.json('GET', '/optout/lists?projectId=p201')).status).toBe(404);
    expect((await t.json('PATCH', `/optout/lists/${created.body.id}`, { body: { projectId: 'p9' } })).status).toBe(400);
    expect((await t.json('PATCH', `/optout/lists/${created.body.id}`, { body: { language: null } })).body.language).toBeNull();
    const audit = (await t.json('GET', '/admin/audit?entity=optout-lists')).body.value.filter((r: any) => String(r.EntityId) === String(created.body.id));
    expect(audit.map((r: any) => r.Changes)).toEqual([{ language: ['de', null] }, { language: ['nl', 'de'] }, { companyId: expect.any(Number), projectId: 'p200', language: 'nl' }]);
  });

  it('wins over Accept-Language on the confirm page, the one-click POST and its result page', async () => {
    const listId = (await t.json('POST', '/optout/lists', { body: { projectId: 'p300', language: 'de' } })).body.id;
    const key = await linkFor(listId, 'anna@example.de');
    const confirm = await page('GET', `/unsubscribe?key=${key}`, { 'accept-language': 'nl, en;q=0.5' });
    expect(confirm.headers.get('content-language')).toBe('de');
    expect(confirm.html).toContain('<button type="submit">Abmelden</button>');
    const oneClick = await page('POST', `/unsubscribe?key=${key}`, { 'content-type': 'application/x-www-form-urlencoded' }, 'List-Unsubscribe=One-Click');
    expect(oneClick.status).toBe(200);
    expect(oneClick.headers.get('content-language')).toBe('de');
    expect(htmlLang(oneClick.html)).toBe('de');
    expect(oneClick.html).toContain('<h1>Sie sind abgemeldet</h1>');
    expect(oneClick.html).toContain('Sie wurden abgemeldet.');
  });
});

describe('PUT /optout/settings: texts per language and defaultLanguage', () => {
  it('stores texts per language and the default language, answers them on GET, and the pages use them', async () => {
    const put = await t.json('PUT', '/optout/settings', {
      body: { defaultLanguage: 'nl', texts: { nl: { defaultPageText: 'Hallo <b>NL</b> & co' }, de: { resultPageText: 'Erledigt <script>x</script>' } } },
    });
    expect(put.status).toBe(200);
    expect(put.body.defaultLanguage).toBe('nl');
    expect(put.body.texts.nl.defaultPageText).toBe('Hallo <b>NL</b> & co');
    expect(put.body.texts.de.resultPageText).toBe('Erledigt <script>x</script>');
    expect(put.body.texts.de.defaultPageText).toMatch(/Abmeldelink/);
    expect((await t.json('GET', '/optout/settings')).body).toEqual(put.body);

    const byDefault = await page('GET', '/unsubscribe', { 'accept-language': 'fr' });
    expect(byDefault.headers.get('content-language')).toBe('nl');
    expect(byDefault.html).toContain('<p>Hallo &#60;b&#62;NL&#60;/b&#62; &#38; co</p>');
    expect(byDefault.html).not.toContain('<b>NL');
    expect((await page('GET', '/unsubscribe')).headers.get('content-language')).toBe('nl');
    expect((await page('GET', '/unsubscribe', { 'accept-language': 'en' })).html).toMatch(/unsubscribe link at the bottom/);

    const listId = (await t.json('POST', '/optout/lists', { body: { projectId: 'p400', language: 'de' } })).body.id;
    const key = await linkFor(listId, 'esc@example.de');
    const result = await page('POST', `/unsubscribe?key=${key}`);
    expect(result.html).toContain('Erledigt &#60;script&#62;x&#60;/script&#62;');
    expect(result.html).not.toContain('<script>');

    const audit = (await t.json('GET', '/admin/audit?entity=optout-settings')).body.value[0];
    expect(audit.Changes).toMatchObject({ defaultLanguage: ['en', 'nl'], 'texts.nl.defaultPageText': [expect.any(String), 'Hallo <b>NL</b> & co'] });

    const reset = await t.json('PUT', '/optout/settings', { body: { defaultLanguage: null, texts: { nl: { defaultPageText: null }, de: { resultPageText: null } } } });
    expect(reset.body.defaultLanguage).toBe('en');
    expect(reset.body.texts.nl.defaultPageText).toMatch(/afmeldlink/);
  });

  it('the top-level texts are the English ones (texts.en)', async () => {
    const put = await t.json('PUT', '/optout/settings', { body: { texts: { en: { confirmPageText: 'Press to leave.' } } } });
    expect(put.body.confirmPageText).toBe('Press to leave.');
    expect((await t.json('PUT', '/optout/settings', { body: { confirmPageText: null } })).body.texts.en.confirmPageText).toMatch(/Press the button below/);
  });

  it('takes back what GET gave with one text edited, top-level or in texts; two new values for one text → 400', async () => {
    const got = (await t.json('GET', '/optout/settings')).body;
    const top = await t.json('PUT', '/optout/settings', { body: { ...got, resultPageText: 'Gone for good.' } });
    expect(top.status).toBe(200);
    expect(top.body.texts.en.resultPageText).toBe('Gone for good.');
    const nested = await t.json('PUT', '/optout/settings', { body: { ...top.body, texts: { ...top.body.texts, en: { ...top.body.texts.en, resultPageText: 'Bye.' } } } });
    expect(nested.status).toBe(200);
    expect(nested.body.resultPageText).toBe('Bye.');
    const both = await t.json('PUT', '/optout/settings', { body: { resultPageText: 'One', texts: { en: { resultPageText: 'Two' } } } });
    expect(both.status).toBe(400);
    expect(both.body.message).toMatch(/resultPageText/);
    expect((await t.json('PUT', '/optout/settings', { body: { resultPageText: null } })).status).toBe(200);
  });

  it('an unknown language, field or bad text → 400 naming it, nothing stored', async () => {
    const before = (await t.json('GET', '/optout/settings')).body;
    const cases: [unknown, RegExp][] = [
      [{ defaultLanguage: 'fr' }, /'fr'/],
      [{ texts: { fr: { defaultPageText: 'Bonjour' } } }, /'fr'/],
      [{ texts: { nl: { footer: 'x' } } }, /texts\.nl\.footer/],
      [{ texts: { nl: { resultPageText: '  ' } } }, /texts\.nl\.resultPageText/],
      [{ texts: { nl: 'Hallo' } }, /texts\.nl/],
      [{ texts: ['nl'] }, /texts/],
      [{ defaultLanguage: 'de', texts: { de: { resultPageText: 7 } } }, /texts\.de\.resultPageText/],
    ];
    for (const [body, message] of cases) {
      const r = await t.json('PUT', '/optout/settings', { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message, JSON.stringify(body)).toMatch(message);
    }
    expect((await t.json('GET', '/optout/settings')).body).toEqual(before);
  });
});
