/**
 * The blacklist screen's search (docs/cati-api.md#blacklist-search): `Controller.Search(text='…')` reads the text
 * as Controller.Check does (the phone region included) and matches the stored number or any part of the comment;
 * it takes the collection options and is a read (`cati_read`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
const search = (text: string, query = '', key?: string) =>
  t.json('GET', `/cati/blacklist/Controller.Search(text='${encodeURIComponent(text.replace(/'/g, "''"))}')${query}`, key ? { key } : undefined);
const numbers = (r: { body: any }) => (r.body.value as { TelephoneNumber: string }[]).map((i) => i.TelephoneNumber).sort();

beforeAll(async () => {
  t = await startTestServer({ phoneRegion: 'NL' });
  for (const [n, comment] of [['+31 20 555 0198', 'Klant wil niet gebeld worden'], ['06 12345678', 'Mrs. O’Brien 50%_off'], ['0049 30 1234567', null]] as const) {
    expect((await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: n, Comment: comment } })).status).toBe(201);
  }
});
afterAll(() => t.close());

describe('GET /cati/blacklist/Controller.Search', () => {
  it('finds a number however it is typed', async () => {
    for (const typed of ['020 555 0198', '+31 (0)20 555-0198', '0031205550198', '31205550198', '020 555', '555 0198', '0198']) {
      expect(numbers(await search(typed)), typed).toEqual(['31205550198']);
    }
    expect(numbers(await search('06-1234'))).toEqual(['31612345678']);
    expect(numbers(await search('+49 30'))).toEqual(['49301234567']);
    expect(numbers(await search('0900 0000'))).toEqual([]);
  });

  it('matches any part of the comment, in any case, with % and _ taken literally', async () => {
    expect(numbers(await search('NIET GEBELD'))).toEqual(['31205550198']);
    expect(numbers(await search('50%_'))).toEqual(['31612345678']);
    expect(numbers(await search('%'))).toEqual(['31612345678']);
    expect(numbers(await search("o’brien"))).toEqual(['31612345678']);
    expect(numbers(await search('nobody'))).toEqual([]);
  });

  it('an empty text finds every row; the collection options apply', async () => {
    expect(numbers(await search(''))).toHaveLength(3);
    const r = await search('3', '?$count=true&$orderby=TelephoneNumber desc&$top=1&$select=TelephoneNumber');
    expect(r.status).toBe(200);
    expect(r.body['@odata.count']).toBe(3);
    expect(r.body.value).toEqual([expect.objectContaining({ TelephoneNumber: '49301234567' })]);
    expect(Object.keys(r.body.value[0])).not.toContain('Comment');
    expect(numbers(await search('0', "?$filter=Type eq 'Equal' and Comment ne null"))).toEqual(['31205550198', '31612345678']);
  });

  it('is a read: cati_read may search, a key without CATI permissions may not', async () => {
    const { key: reader } = await t.server.ctx.keys.create('reader', ['cati_read']);
    expect(numbers(await search('020 555 0198', '', reader))).toEqual(['31205550198']);
    const { key: mailer } = await t.server.ctx.keys.create('mailer', ['optout_administrate']);
    expect((await search('020', '', mailer)).status).toBe(403);
  });

  it('is declared in $metadata', async () => {
    const xml = await (await t.request('GET', '/cati/$metadata')).text();
    expect(xml).toMatch(/<Function Name="Search" IsBound="true"[^>]*>/);
  });
});
