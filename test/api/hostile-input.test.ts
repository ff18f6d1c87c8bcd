/**
 * Hostile query strings and bodies over HTTP (docs/optout-api.md#limits): long operator chains in $filter/$orderby,
 * SQL that SQLite refuses at prepare time, deeply nested JSON, invalid UTF-8, and bodies sent by keys that may not
 * write. Each answer is a 4xx with a message, never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itSqliteOnly } from '../helpers/engine.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let listId: number;
let readOnlyKey: string;
beforeAll(async () => {
  t = await startTestServer();
  listId = (await t.json('POST', '/optout/lists', { body: { projectId: 'p900' } })).body.id;
  readOnlyKey = (await t.server.ctx.keys.create('reader', ['cati_integrate'])).key;
});
afterAll(() => t.close());

const chain = (op: string, n: number) => `Id ${Array.from({ length: n }, () => `${op} 1`).join(' ')} gt 0`;
const nestedItems = (depth: number) => `{"BlackListItems":[${'['.repeat(depth)}"x"${']'.repeat(depth)}]}`;
const json = { 'content-type': 'application/json' };

describe('$filter and $orderby budgets', () => {
  it.each(['add', 'mul', 'div', 'sub'])('a chain of 1,300 %s operators → 400 with a position, not 500', async (op) => {
    const r = await t.json('GET', `/cati/blacklist?$filter=${encodeURIComponent(chain(op, 1300))}`);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/more than \d+ (operators|terms) in \$filter at position \d+/);
  });

  it('a long or-chain and a long $orderby are refused the same way', async () => {
    const ors = Array.from({ length: 400 }, () => 'Id eq 1').join(' or ');
    expect((await t.json('GET', `/cati/blacklist?$filter=${encodeURIComponent(ors)}`)).status).toBe(400);
    const keys = Array.from({ length: 1500 }, () => 'Id').join(',');
    const r = await t.json('GET', `/cati/blacklist?$orderby=${encodeURIComponent(keys)}`);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/\$orderby at position \d+/);
  });

  it('a chain within the budget still runs', async () => {
    const r = await t.json('GET', `/cati/blacklist?$filter=${encodeURIComponent(chain('add', 200))}`);
    expect(r.status).toBe(200);
  });

  // SQLite only by nature: its parser's expression-depth limit (PostgreSQL accepts the same SQL).
  itSqliteOnly('SQL that SQLite refuses at prepare time (expression tree too large) is a 400, not a 500', async () => {
    const deep = `SELECT 1 WHERE ${'1 + '.repeat(1200)}1 > 0`;
    await expect(t.server.ctx.store.all(deep)).rejects.toThrow(expect.objectContaining({ status: 400 }));
  });
});

describe('JSON bodies', () => {
  it('deeply nested items in Controller.Import → 400, not a stack overflow', async () => {
    const r = await t.json('POST', '/cati/blacklist/Controller.Import', { raw: nestedItems(100_000), headers: json });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/more than 64 levels/);
  });

  it('nesting at the limit is still accepted (the item is reported as invalid)', async () => {
    const r = await t.json('POST', '/cati/blacklist/Controller.Import', { raw: nestedItems(60), headers: json });
    expect(r.status).toBe(200);
    expect(r.body.Invalid).toBe(1);
  });

  it('invalid UTF-8 in a JSON body → 400 and nothing stored', async () => {
    const raw = Buffer.concat([Buffer.from('{"emailAddress":"a'), Buffer.from([0xc3, 0x28]), Buffer.from('@example.com"}')]);
    const r = await t.request('POST', `/optout/lists/${listId}/emails`, { raw, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(await r.text()).toMatch(/not valid UTF-8/);
    const cati = await t.request('POST', '/cati/blacklist', {
      raw: Buffer.concat([Buffer.from('{"TelephoneNumber":"0900","Comment":"'), Buffer.from([0xff]), Buffer.from('"}')]),
      headers: { 'content-type': 'application/json' },
    });
    expect(cati.status).toBe(400);
    expect((await t.json('GET', `/optout/lists/${listId}/emails`)).body.totalCount).toBe(0);
  });

  it('valid multi-byte UTF-8 is accepted', async () => {
    const r = await t.json('POST', `/optout/lists/${listId}/domains`, { body: { domain: 'bücher.de' } });
    expect(r.status).toBe(200);
  });

  it('a key without the permission gets 403 before its (malformed) body is parsed', async () => {
    const junk = '{'.repeat(1000);
    const headers = { 'content-type': 'application/json' };
    const cati = await t.request('POST', '/cati/groups', { raw: junk, headers, key: readOnlyKey });
    expect(cati.status).toBe(403);
    const optout = await t.request('POST', `/optout/lists/${listId}/emails`, { raw: junk, headers, key: readOnlyKey });
    expect(optout.status).toBe(403);
    const lists = await t.request('POST', '/optout/lists', { raw: junk, headers, key: readOnlyKey });
    expect(lists.status).toBe(403);
    const keys = await t.request('POST', '/admin/keys', { raw: junk, headers, key: readOnlyKey });
    expect(keys.status).toBe(403);
    // With the permission the same body is a 400.
    expect((await t.request('POST', `/optout/lists/${listId}/emails`, { raw: junk, headers })).status).toBe(400);
  });
});
