import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { failInsertsWhen, INJECTED_FAILURE } from '../helpers/engine.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let adminKey: string;
let integrateKey: string;
let optoutKey: string;

beforeAll(async () => {
  t = await startTestServer();
  adminKey = (await t.server.ctx.keys.create('admin', ['cati_administrate'])).key;
  integrateKey = (await t.server.ctx.keys.create('dialer', ['cati_integrate'])).key;
  optoutKey = (await t.server.ctx.keys.create('mailer', ['optout_administrate'])).key;
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.server.ctx.store.run('DELETE FROM blacklist');
});

const add = async (body: unknown) => {
  const r = await t.json('POST', '/cati/blacklist', { body });
  expect(r.status).toBe(201);
  return r.body;
};

describe('POST /cati/blacklist', () => {
  it('creates an item with a normalised number, default Type Equal, Location and ETag', async () => {
    const r = await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '+48 (22) 123-45.67', Comment: 'asked twice' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ TelephoneNumber: '48221234567', Type: 'Equal', Comment: 'asked twice', '@odata.etag': 'W/"1"' });
    expect(r.body['@odata.context']).toBe(`${t.url}/cati/$metadata#blacklist/$entity`);
    expect(r.body.Created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(r.headers.get('location')).toBe(`${t.url}/cati/blacklist(${r.body.Id})`);
    expect(r.headers.get('etag')).toBe('W/"1"');
    const again = await t.json('GET', `/cati/blacklist(${r.body.Id})`);
    expect(again.body).toEqual(r.body);
  });

  it('answers 409 with the existing Id for the same number and type, but allows the other type', async () => {
    const first = await add({ TelephoneNumber: '0900', Type: 'StartWith' });
    const dup = await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '09-00', Type: 'StartWith' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: 'Conflict', details: [{ code: 'ExistingId', target: 'Id', message: String(first.Id) }] });
    await add({ TelephoneNumber: '0900', Type: 'Equal' });
  });

  it.each([
    [{ TelephoneNumber: '12ab34' }, /may contain only digits/],
    [{ TelephoneNumber: ' - ' }, /empty/],
    [{ TelephoneNumber: 12345 }, /must be a string/],
    [{}, /TelephoneNumber is required/],
    [{ TelephoneNumber: '1', Type: 'Prefix' }, /Type must be one of Equal, StartWith/],
    [{ TelephoneNumber: '1', Comment: 'x'.repeat(256) }, /longer than 255/],
    [{ TelephoneNumber: '1', Colour: 'red' }, /Unknown property 'Colour'/],
  ])('rejects %j with 400', async (body, message) => {
    const r = await t.json('POST', '/cati/blacklist', { body });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(message);
  });

  it('ignores the read-only Created and Id', async () => {
    const r = await add({ TelephoneNumber: '555', Created: '2000-01-01T00:00:00Z', Id: 999 });
    expect(r.Created).not.toMatch(/^2000/);
    expect(r.Id).not.toBe(999);
  });

  it('needs a JSON body (400) of a JSON media type (415)', async () => {
    expect((await t.json('POST', '/cati/blacklist')).status).toBe(400);
    expect((await t.json('POST', '/cati/blacklist', { raw: '{bad', headers: { 'content-type': 'application/json' } })).status).toBe(400);
    expect((await t.json('POST', '/cati/blacklist', { raw: 'x', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    expect((await t.json('POST', '/cati/blacklist', { body: 'just a string' })).status).toBe(400);
    expect((await t.json('POST', '/cati/blacklist', { body: [{ TelephoneNumber: '1' }] })).status).toBe(400);
  });
});

describe('GET /cati/blacklist', () => {
  it('filters, sorts, selects and counts', async () => {
    await add({ TelephoneNumber: '111', Comment: "O'Neil" });
    await add({ TelephoneNumber: '222', Type: 'StartWith' });
    await add({ TelephoneNumber: '333' });
    const r = await t.json('GET', `/cati/blacklist?$filter=${encodeURIComponent("Type eq 'Equal' and Comment ne 'O''Neil'")}&$count=true`);
    expect(r.status).toBe(200);
    expect(r.body['@odata.count']).toBe(1);
    expect(r.body.value.map((x: any) => x.TelephoneNumber)).toEqual(['333']);
    const sorted = await t.json('GET', '/cati/blacklist?$orderby=Type desc,TelephoneNumber desc&$select=TelephoneNumber,Type');
    expect(sorted.body.value).toEqual([
      { '@odata.etag': 'W/"1"', TelephoneNumber: '222', Type: 'StartWith' },
      { '@odata.etag': 'W/"1"', TelephoneNumber: '333', Type: 'Equal' },
      { '@odata.etag': 'W/"1"', TelephoneNumber: '111', Type: 'Equal' },
    ]);
    expect(sorted.body['@odata.context']).toBe(`${t.url}/cati/$metadata#blacklist(TelephoneNumber,Type)`);
    const top = await t.json('GET', '/cati/blacklist?$top=1&$skip=1');
    expect(top.body.value.map((x: any) => x.TelephoneNumber)).toEqual(['222']);
  });

  it.each([
    ['$filter=Foo eq 1', "Unknown property 'Foo' in $filter at position 0"],
    ['$filter=telephoneNumber eq 1', "did you mean 'TelephoneNumber'"],
    ["$filter=contains(Id,'1')", "Argument 1 of 'contains' must be string"],
    ["$filter=Created gt 'abc'", 'Cannot compare date-time with string'],
    ['$filter=Id eq', 'at position 5'],
    ['$orderby=Nope', "Unknown property 'Nope' in $orderby"],
    ['$select=Id,Nope', "Unknown property 'Nope' in $select"],
    ['$top=10001', 'at most 10000'],
    ['$skip=-1', 'non-negative'],
    ['$count=yes', '$count must be true or false'],
    ['$expand=X', '$expand is not supported'],
    ['$search=X', '$search is not supported'],
    ['$whatever=1', 'Unknown query option $whatever'],
    ['$skiptoken=abc', 'Invalid $skiptoken'],
  ])('?%s → 400 naming the problem', async (query, message) => {
    const r = await t.json('GET', `/cati/blacklist?${query.replace(/ /g, '%20')}`);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('BadRequest');
    expect(r.body.error.message).toContain(message);
  });

  it('startswith on TelephoneNumber is an exact prefix test', async () => {
    await add({ TelephoneNumber: '0900' });
    await add({ TelephoneNumber: '09001' });
    await add({ TelephoneNumber: '0901' });
    await add({ TelephoneNumber: '090' });
    const r = await t.json('GET', `/cati/blacklist?$filter=${encodeURIComponent("startswith(TelephoneNumber,'0900')")}`);
    expect(r.body.value.map((x: any) => x.TelephoneNumber)).toEqual(['0900', '09001']);
    const none = await t.json('GET', `/cati/blacklist?$filter=${encodeURIComponent("not startswith(TelephoneNumber,'090')")}`);
    expect(none.body.value).toEqual([]);
  });

  it('accepts $format=json and ignores non-$ parameters', async () => {
    expect((await t.json('GET', '/cati/blacklist?$format=json&foo=bar')).status).toBe(200);
  });

  it('pages 1000 rows at a time with @odata.nextLink and a $skiptoken, following the order', async () => {
    const items = Array.from({ length: 2500 }, (_, i) => String(100000 + i));
    const imp = await t.json('POST', '/cati/blacklist/Controller.Import', { body: { BlackListItems: items } });
    expect(imp.body.Added).toBe(2500);
    const seen: string[] = [];
    let url: string | undefined = `/cati/blacklist?$orderby=TelephoneNumber desc&$count=true&$skip=10`;
    let pages = 0;
    while (url && pages < 10) {
      const r: { status: number; body: any } = await t.json('GET', url);
      expect(r.status).toBe(200);
      expect(r.body['@odata.count']).toBe(2500);
      seen.push(...r.body.value.map((x: any) => x.TelephoneNumber));
      const next: string | undefined = r.body['@odata.nextLink'];
      if (next) {
        expect(next.startsWith(`${t.url}/cati/blacklist?`)).toBe(true);
        expect(next).not.toContain('skip=10');
      }
      url = next?.slice(t.url.length);
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual([...items].reverse().slice(10));
  });

  it('with $top returns up to $top rows and no nextLink', async () => {
    await t.json('POST', '/cati/blacklist/Controller.Import', { body: { BlackListItems: Array.from({ length: 1200 }, (_, i) => String(i + 1)) } });
    const r = await t.json('GET', '/cati/blacklist?$top=1100');
    expect(r.body.value).toHaveLength(1100);
    expect(r.body['@odata.nextLink']).toBeUndefined();
    const none = await t.json('GET', '/cati/blacklist?$top=0');
    expect(none.body.value).toEqual([]);
  });
});

describe('GET /cati/blacklist({Id})', () => {
  it('404 for a well-formed unknown key, 400 for a bad one', async () => {
    expect((await t.json('GET', '/cati/blacklist(424242)')).status).toBe(404);
    expect((await t.json('GET', "/cati/blacklist('x')")).status).toBe(400);
    expect((await t.json('GET', '/cati/blacklist(2147483648)')).body.error.message).toMatch(/int32/);
    expect((await t.json('GET', '/cati/blacklist(1)?$filter=Id eq 1')).status).toBe(400);
  });
  it('accepts the named key form and $select', async () => {
    const item = await add({ TelephoneNumber: '123' });
    const r = await t.json('GET', `/cati/blacklist(Id=${item.Id})?$select=TelephoneNumber`);
    expect(r.body).toEqual({ '@odata.context': `${t.url}/cati/$metadata#blacklist(TelephoneNumber)/$entity`, '@odata.etag': 'W/"1"', TelephoneNumber: '123' });
  });
});

describe('PUT /cati/blacklist({Id})', () => {
  it('updates the fields present, bumps the ETag, keeps the rest', async () => {
    const item = await add({ TelephoneNumber: '123', Comment: 'keep' });
    const r = await t.json('PUT', `/cati/blacklist(${item.Id})`, { body: { Type: 'StartWith' }, headers: { 'if-match': 'W/"1"' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ Id: item.Id, TelephoneNumber: '123', Type: 'StartWith', Comment: 'keep', Created: item.Created, '@odata.etag': 'W/"2"' });
    expect(r.headers.get('etag')).toBe('W/"2"');
  });
  it('412 on a stale If-Match, * passes, no header passes', async () => {
    const item = await add({ TelephoneNumber: '123' });
    await t.json('PUT', `/cati/blacklist(${item.Id})`, { body: { Comment: 'a' } });
    const stale = await t.json('PUT', `/cati/blacklist(${item.Id})`, { body: { Comment: 'b' }, headers: { 'if-match': 'W/"1"' } });
    expect(stale.status).toBe(412);
    expect(stale.body.error.code).toBe('PreconditionFailed');
    expect((await t.json('GET', `/cati/blacklist(${item.Id})`)).body.Comment).toBe('a');
    expect((await t.json('PUT', `/cati/blacklist(${item.Id})`, { body: { Comment: 'c' }, headers: { 'if-match': '*' } })).status).toBe(200);
  });
  it('409 when the change would duplicate another item; 404 for unknown; 400 for a mismatched Id', async () => {
    const a = await add({ TelephoneNumber: '111' });
    const b = await add({ TelephoneNumber: '222' });
    const r = await t.json('PUT', `/cati/blacklist(${b.Id})`, { body: { TelephoneNumber: '1-1-1' } });
    expect(r.status).toBe(409);
    expect(r.body.error.details).toEqual([{ code: 'ExistingId', target: 'Id', message: String(a.Id) }]);
    expect((await t.json('PUT', '/cati/blacklist(999999)', { body: { Comment: 'x' } })).status).toBe(404);
    expect((await t.json('PUT', `/cati/blacklist(${a.Id})`, { body: { Id: b.Id, Comment: 'x' } })).status).toBe(400);
  });
  it('POST on an entity is 405 with Allow (PATCH is allowed)', async () => {
    const a = await add({ TelephoneNumber: '111' });
    const r = await t.json('POST', `/cati/blacklist(${a.Id})`, { body: {} });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, HEAD, PUT, PATCH, DELETE');
    expect((await t.json('DELETE', '/cati/blacklist')).headers.get('allow')).toBe('GET, HEAD, POST');
  });
});

describe('DELETE /cati/blacklist({Id})', () => {
  it('honours If-Match: stale 412, current deletes (204), then 404', async () => {
    const a = await add({ TelephoneNumber: '111' });
    expect((await t.json('DELETE', `/cati/blacklist(${a.Id})`, { headers: { 'if-match': 'W/"7"' } })).status).toBe(412);
    expect((await t.request('DELETE', `/cati/blacklist(${a.Id})`, { headers: { 'if-match': 'W/"1"' } })).status).toBe(204);
    expect((await t.json('DELETE', `/cati/blacklist(${a.Id})`)).status).toBe(404);
  });
  it('deletes without If-Match', async () => {
    const a = await add({ TelephoneNumber: '111' });
    expect((await t.request('DELETE', `/cati/blacklist(${a.Id})`)).status).toBe(204);
  });
  it('never reuses the Id of a deleted item (a stale URL or ETag cannot reach a newer number)', async () => {
    const a = await add({ TelephoneNumber: '222' });
    expect((await t.request('DELETE', `/cati/blacklist(${a.Id})`)).status).toBe(204);
    const b = await add({ TelephoneNumber: '333' });
    expect(b.Id).toBeGreaterThan(a.Id);
    expect((await t.request('DELETE', `/cati/blacklist(${b.Id})`)).status).toBe(204);
    expect((await t.json('POST', '/cati/blacklist/Controller.Import', { body: { BlackListItems: ['444'] } })).body.Added).toBe(1);
    const imported = await t.json('GET', "/cati/blacklist?$filter=TelephoneNumber eq '444'");
    expect(imported.body.value[0].Id).toBeGreaterThan(b.Id);
  });
});

describe('POST /cati/blacklist/Controller.Import', () => {
  it('adds strings and objects, counts duplicates and invalid items with their index', async () => {
    await add({ TelephoneNumber: '111' });
    const r = await t.json('POST', '/cati/blacklist/Controller.Import', {
      body: { BlackListItems: ['111', '222', '2 2 2', 'abc', { TelephoneNumber: '0900', Type: 'StartWith' }, { TelephoneNumber: '1', Type: 'Nope' }, 5] },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ Added: 2, Duplicates: 2, Invalid: 3 });
    expect(r.body.InvalidItems).toEqual([
      { Index: 3, Value: 'abc', Message: expect.stringContaining('only digits') },
      { Index: 5, Value: '1', Message: expect.stringContaining('Type must be one of') },
      { Index: 6, Value: '5', Message: expect.stringContaining('string or an object') },
    ]);
    const check = await t.json('GET', "/cati/blacklist/Controller.Check(telephoneNumber='09001')");
    expect(check.body.value).toBe(true);
  });
  it('accepts the SDK shape {"BlackListItems": {"Items": [...]}}', async () => {
    const r = await t.json('POST', '/cati/blacklist/Controller.Import', { body: { BlackListItems: { Items: ['1', '2'] } } });
    expect(r.body.Added).toBe(2);
  });
  it('lists at most 100 invalid items', async () => {
    const r = await t.json('POST', '/cati/blacklist/Controller.Import', { body: { BlackListItems: Array.from({ length: 150 }, () => 'x') } });
    expect(r.body.Invalid).toBe(150);
    expect(r.body.InvalidItems).toHaveLength(100);
  });
  it('more than 10000 items → 400 and nothing stored; exactly 10000 is accepted', async () => {
    const over = Array.from({ length: 10001 }, (_, i) => String(i + 1));
    const r = await t.json('POST', '/cati/blacklist/Controller.Import', { body: { BlackListItems: over } });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/at most 10000/);
    expect((await t.json('GET', '/cati/blacklist?$count=true&$top=0')).body['@odata.count']).toBe(0);
    const ok = await t.json('POST', '/cati/blacklist/Controller.Import', { body: { BlackListItems: over.slice(1) } });
    expect(ok.body.Added).toBe(10000);
  });
  it('two imports at once with numbers in common store each number once, and their counts add up', async () => {
    // Each import reads which numbers are stored, then inserts the rest (PostgreSQL: serializable, retried on conflict).
    const a = Array.from({ length: 3000 }, (_, i) => `31600${String(i).padStart(5, '0')}`);
    const b = Array.from({ length: 3000 }, (_, i) => `31600${String(i + 1500).padStart(5, '0')}`);
    const rs = await Promise.all([a, b, a].map((items) => t.json('POST', '/cati/blacklist/Controller.Import', { body: { BlackListItems: items } })));
    expect(rs.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(rs.reduce((n, r) => n + (r.body.Added as number), 0)).toBe(4500);
    expect(rs.reduce((n, r) => n + (r.body.Duplicates as number), 0)).toBe(9000 - 4500);
    expect((await t.json('GET', '/cati/blacklist?$count=true&$top=0')).body['@odata.count']).toBe(4500);
  });
  it('is atomic: a failure mid-way stores nothing', async () => {
    // A trigger makes the 3rd insert fail inside the transaction.
    const undo = await failInsertsWhen(t.server.ctx.store, 'blacklist', 'telephone_number', '333');
    try {
      const r = await t.json('POST', '/cati/blacklist/Controller.Import', { body: { BlackListItems: ['111', '222', '333', '444'] } });
      expect(r.status).toBe(500);
      expect(JSON.stringify(r.body)).not.toContain(INJECTED_FAILURE);
    } finally {
      await undo();
    }
    expect((await t.json('GET', '/cati/blacklist?$count=true&$top=0')).body['@odata.count']).toBe(0);
  });
  it('rejects a missing or malformed body, path arguments and GET', async () => {
    expect((await t.json('POST', '/cati/blacklist/Controller.Import')).status).toBe(400);
    expect((await t.json('POST', '/cati/blacklist/Controller.Import', { body: { Items: [] } })).status).toBe(400);
    expect((await t.json('POST', '/cati/blacklist/Controller.Import(x=1)', { body: { BlackListItems: [] } })).status).toBe(400);
    const get = await t.json('GET', '/cati/blacklist/Controller.Import');
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect((await t.request('HEAD', '/cati/blacklist/Controller.Import')).status).toBe(405);
  });
});

describe('GET /cati/blacklist/Controller.Check', () => {
  it('applies Equal exactly and StartWith as a prefix', async () => {
    const eq = await add({ TelephoneNumber: '48221234567' });
    const sw = await add({ TelephoneNumber: '0900', Type: 'StartWith' });
    const check = async (n: string) => (await t.json('GET', `/cati/blacklist/Controller.Check(telephoneNumber='${encodeURIComponent(n)}')`)).body;
    expect(await check('+48 22 123 45 67')).toMatchObject({ value: true, MatchedId: eq.Id });
    expect(await check('4822123456')).toMatchObject({ value: false, MatchedId: null });
    expect(await check('482212345678')).toMatchObject({ value: false, MatchedId: null });
    expect(await check('0900123456')).toMatchObject({ value: true, MatchedId: sw.Id });
    expect(await check('0900')).toMatchObject({ value: true, MatchedId: sw.Id });
    expect(await check('090')).toMatchObject({ value: false, MatchedId: null });
  });
  it('400 for an invalid number or a missing/extra argument', async () => {
    expect((await t.json('GET', "/cati/blacklist/Controller.Check(telephoneNumber='abc')")).status).toBe(400);
    expect((await t.json('GET', '/cati/blacklist/Controller.Check()')).body.error.message).toMatch(/Missing parameter 'telephoneNumber'/);
    expect((await t.json('GET', "/cati/blacklist/Controller.Check(telephoneNumber='1',x='2')")).status).toBe(400);
    expect((await t.json('GET', '/cati/blacklist/Controller.Check(telephoneNumber=123)')).status).toBe(400);
    expect((await t.json('GET', "/cati/blacklist(1)/Controller.Check(telephoneNumber='1')")).status).toBe(404);
  });
  it('is allowed with cati_integrate as well as cati_administrate; HEAD is allowed', async () => {
    const path = "/cati/blacklist/Controller.Check(telephoneNumber='1')";
    expect((await t.json('GET', path, { key: integrateKey })).status).toBe(200);
    expect((await t.json('GET', path, { key: adminKey })).status).toBe(200);
    expect((await t.json('GET', path, { key: optoutKey })).status).toBe(403);
    expect((await t.request('HEAD', path)).status).toBe(200);
  });
});

describe('authentication and permissions', () => {
  it('401 without or with an unknown key', async () => {
    expect((await t.json('GET', '/cati/blacklist', { key: null })).status).toBe(401);
    expect((await t.json('GET', '/cati/blacklist', { key: 'unknown-key-unknown-key' })).status).toBe(401);
  });
  it('403 for keys without cati_administrate on everything but Check', async () => {
    for (const key of [integrateKey, optoutKey]) {
      const r = await t.json('GET', '/cati/blacklist', { key });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('Forbidden');
      expect((await t.json('POST', '/cati/blacklist', { key, body: { TelephoneNumber: '1' } })).status).toBe(403);
      expect((await t.json('POST', '/cati/blacklist/Controller.Import', { key, body: { BlackListItems: ['1'] } })).status).toBe(403);
    }
    expect((await t.json('GET', '/cati/blacklist', { key: adminKey })).status).toBe(200);
  });
});

describe('service document and $metadata', () => {
  it('?$format=xml on a collection → 406 (only JSON is served there)', async () => {
    const r = await t.json('GET', '/cati/blacklist?$format=xml');
    expect(r.status).toBe(406);
    expect(r.body.error.code).toBe('NotAcceptable');
  });
  it('GET /cati/ lists the entity sets', async () => {
    const r = await t.json('GET', '/cati/');
    expect(r.status).toBe(200);
    expect(r.body['@odata.context']).toBe(`${t.url}/cati/$metadata`);
    expect(r.body.value).toContainEqual({ name: 'blacklist', kind: 'EntitySet', url: 'blacklist' });
  });
  it('GET /cati/$metadata is CSDL XML declaring the set, its type, the enum and the operations', async () => {
    const res = await t.request('GET', '/cati/$metadata');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/xml/);
    const xml = await res.text();
    expect(xml.startsWith('<?xml')).toBe(true);
    expect(xml).toContain('Namespace="Controller"');
    expect(xml).toContain('<EntitySet Name="blacklist" EntityType="Controller.TelephoneBlacklistItem"/>');
    expect(xml).toContain('<Property Name="Type" Type="Controller.BlacklistType" Nullable="false"/>');
    expect(xml).toContain('<EnumType Name="BlacklistType">');
    expect(xml).toMatch(/<Function Name="Check" IsBound="true">/);
    expect(xml).toMatch(/<Action Name="Import" IsBound="true">/);
    // Well-formed: every opened element is closed in order.
    const stack: string[] = [];
    for (const m of xml.matchAll(/<(\/?)([A-Za-z:]+)[^>]*?(\/?)>/g)) {
      if (m[3]) continue;
      if (m[1]) expect(stack.pop()).toBe(m[2]);
      else stack.push(m[2]!);
    }
    expect(stack).toEqual([]);
  });
  it('an unknown or wrong-case entity set is 404', async () => {
    expect((await t.json('GET', '/cati/Blacklist')).status).toBe(404);
    expect((await t.json('GET', '/cati/black-list(1)')).status).toBe(404);
  });
  it('$metadata refuses writes with 405', async () => {
    expect((await t.json('POST', '/cati/$metadata', { body: {} })).status).toBe(405);
  });
});
