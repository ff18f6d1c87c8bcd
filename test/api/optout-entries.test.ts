import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let listId: number;
beforeAll(async () => {
  t = await startTestServer();
  listId = (await t.json('POST', '/optout/lists', { body: { projectId: 'p100' } })).body.id;
});
afterAll(() => t.close());

const emails = () => `/optout/lists/${listId}/emails`;
const domains = () => `/optout/lists/${listId}/domains`;

async function freshList(projectId: string): Promise<number> {
  return (await t.json('POST', '/optout/lists', { body: { projectId } })).body.id;
}

describe('adding entries', () => {
  it('POST an e-mail answers its id as a bare integer, the same id for a duplicate in another spelling', async () => {
    const a = await t.request('POST', emails(), { body: { emailAddress: 'Jane.Doe@Example.com' } });
    expect(a.status).toBe(200);
    const text = await a.text();
    expect(text).toMatch(/^\d+$/);
    const b = await t.json('POST', emails(), { body: { emailAddress: '  jane.doe@EXAMPLE.COM ' } });
    expect(b.body).toBe(Number(text));
  });

  it('stores IDN domains in punycode and lowercase', async () => {
    const id = (await t.json('POST', domains(), { body: { domain: 'Bücher.DE' } })).body;
    const page = await t.json('GET', `${domains()}?$filterValue=bcher`);
    expect(page.body.items).toEqual([{ id, domain: 'xn--bcher-kva.de', timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) }]);
  });

  it.each([
    [{ emailAddress: 'Some Name <a@b.com>' }, /display name/],
    [{ emailAddress: 'a@b' }, /two labels/],
    [{ emailAddress: '' }, /empty/],
    [{ emailAddress: 5 }, /emailAddress/],
    [{}, /emailAddress/],
  ])('refuses %j with 400 and a reason', async (body, reason) => {
    const r = await t.json('POST', emails(), { body });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(reason);
  });

  it('refuses a POST without a body and an invalid domain with 400', async () => {
    expect((await t.json('POST', emails())).status).toBe(400);
    const r = await t.json('POST', domains(), { body: { domain: '-bad-.com' } });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/hyphen/);
  });
});

describe('paged lists', () => {
  let list: number;
  beforeAll(async () => {
    list = await freshList('p200');
    for (const e of ['c@x.com', 'a@x.com', 'b_1@x.com', 'b%1@x.com', 'bb1@x.com']) {
      await t.json('POST', `/optout/lists/${list}/emails`, { body: { emailAddress: e } });
    }
  });
  const get = (q: string) => t.json('GET', `/optout/lists/${list}/emails${q}`);

  it('orders by EmailAddress ascending by default, 100 per page, camelCase items', async () => {
    const r = await get('');
    expect(r.status).toBe(200);
    expect(r.body.totalCount).toBe(5);
    expect(r.body.items.map((i: any) => i.emailAddress)).toEqual(['a@x.com', 'b%1@x.com', 'b_1@x.com', 'bb1@x.com', 'c@x.com']);
    expect(Object.keys(r.body.items[0]).sort()).toEqual(['emailAddress', 'id', 'timestamp', 'unsubscribedFrom']);
    expect(r.body.items[0].unsubscribedFrom).toBeNull();
  });

  it('sorts descending and by Id / Timestamp / UnsubscribedFrom, names case-insensitive', async () => {
    const desc = await get('?$orderBy=emailaddress&$orderAscending=false');
    expect(desc.body.items[0].emailAddress).toBe('c@x.com');
    const byId = await get('?$orderBy=ID');
    const ids = byId.body.items.map((i: any) => i.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
    expect((await get('?$orderBy=Timestamp&$orderAscending=FALSE')).status).toBe(200);
    expect((await get('?$orderBy=UnsubscribedFrom')).status).toBe(200);
  });

  it('filters by case-insensitive substring and takes % and _ literally', async () => {
    expect((await get('?$filterValue=B_1')).body.items.map((i: any) => i.emailAddress)).toEqual(['b_1@x.com']);
    expect((await get('?$filterValue=%25')).body.items.map((i: any) => i.emailAddress)).toEqual(['b%1@x.com']);
    const b1 = await get('?$filterValue=1@');
    expect(b1.body.totalCount).toBe(3);
    expect((await get('?$filterValue=zzz')).body).toEqual({ totalCount: 0, items: [] });
  });

  it('pages: pageSize 1, the last page, a page beyond the end, pageSize 1000', async () => {
    const first = await get('?$pageSize=1');
    expect(first.body.items).toHaveLength(1);
    expect(first.body.totalCount).toBe(5);
    const last = await get('?$pageSize=2&$page=3');
    expect(last.body.items.map((i: any) => i.emailAddress)).toEqual(['c@x.com']);
    const beyond = await get('?$pageSize=2&$page=4');
    expect(beyond.body).toEqual({ totalCount: 5, items: [] });
    expect((await get('?$pageSize=1000')).body.items).toHaveLength(5);
  });

  it.each([
    ['?$pageSize=0', /\$pageSize/],
    ['?$pageSize=1001', /\$pageSize/],
    ['?$page=0', /\$page/],
    ['?$page=-1', /\$page/],
    ['?$page=1.5', /\$page/],
    ['?$orderBy=Domain', /\$orderBy/],
    ['?$orderAscending=yes', /\$orderAscending/],
    ['?$top=3', /Unknown query option/],
    ['?$page=1&$page=2', /more than once/],
  ])('GET …/emails%s → 400', async (q, message) => {
    const r = await get(q);
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(message);
  });

  it('domains accept Domain, Timestamp and Id, not EmailAddress', async () => {
    expect((await t.json('GET', `/optout/lists/${list}/domains?$orderBy=domain`)).status).toBe(200);
    expect((await t.json('GET', `/optout/lists/${list}/domains?$orderBy=EmailAddress`)).status).toBe(400);
  });
});

describe('deleting entries', () => {
  it('DELETE → 204, then 404; a bad id → 400', async () => {
    const id = (await t.json('POST', emails(), { body: { emailAddress: 'gone@x.com' } })).body;
    const del = await t.request('DELETE', `${emails()}/${id}`);
    expect(del.status).toBe(204);
    expect(await del.text()).toBe('');
    expect((await t.json('DELETE', `${emails()}/${id}`)).status).toBe(404);
    expect((await t.json('DELETE', `${emails()}/abc`)).status).toBe(400);
    expect((await t.json('DELETE', `${domains()}/0`)).status).toBe(400);
  });

  it('an entry of another list is 404 through this list', async () => {
    const other = await freshList('p300');
    const id = (await t.json('POST', `/optout/lists/${other}/domains`, { body: { domain: 'other.com' } })).body;
    expect((await t.json('DELETE', `${domains()}/${id}`)).status).toBe(404);
    expect((await t.request('DELETE', `/optout/lists/${other}/domains/${id}`)).status).toBe(204);
  });
});

describe('GET …/Check', () => {
  let list: number;
  let domainId: number;
  let emailId: number;
  beforeAll(async () => {
    list = await freshList('p400');
    domainId = (await t.json('POST', `/optout/lists/${list}/domains`, { body: { domain: 'blocked.example' } })).body;
    emailId = (await t.json('POST', `/optout/lists/${list}/emails`, { body: { emailAddress: 'me@ok.example' } })).body;
  });
  const check = (email: string) => t.json('GET', `/optout/lists/${list}/Check?emailAddress=${encodeURIComponent(email)}`);

  it('matches the address itself', async () => {
    expect((await check('ME@ok.example')).body).toEqual({ blocked: true, matchedBy: 'email', entryId: emailId });
  });

  it('matches a domain entry and its subdomains, not look-alikes', async () => {
    expect((await check('x@blocked.example')).body).toEqual({ blocked: true, matchedBy: 'domain', entryId: domainId });
    expect((await check('x@a.b.blocked.example')).body).toEqual({ blocked: true, matchedBy: 'domain', entryId: domainId });
    expect((await check('x@notblocked.example')).body).toEqual({ blocked: false, matchedBy: null, entryId: null });
    expect((await check('you@ok.example')).body.blocked).toBe(false);
  });

  it('takes a + in an unencoded query literally (an address never holds a space)', async () => {
    const id = (await t.json('POST', `/optout/lists/${list}/emails`, { body: { emailAddress: 'john+news@ok.example' } })).body;
    expect((await t.json('GET', `/optout/lists/${list}/Check?emailAddress=john+news@ok.example`)).body).toEqual({ blocked: true, matchedBy: 'email', entryId: id });
    expect((await check('john+news@ok.example')).body.entryId).toBe(id);
    expect((await t.json('GET', `/optout/lists/${list}/Check?emailAddress=john%2Bother@ok.example`)).body.blocked).toBe(false);
    const page = await t.json('GET', `/optout/lists/${list}/emails?$filterValue=n+news`);
    expect(page.body.items.map((i: { emailAddress: string }) => i.emailAddress)).toEqual(['john+news@ok.example']);
  });

  it('refuses a missing or invalid address with 400', async () => {
    expect((await t.json('GET', `/optout/lists/${list}/Check`)).status).toBe(400);
    expect((await check('nope')).status).toBe(400);
  });
});
