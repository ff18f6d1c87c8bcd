import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../server/auth/api-keys.ts';
import { isSqlite, writeFromAnotherConnection } from '../helpers/engine.ts';
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.ts';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const create = (body: unknown, key?: string | null) => t.json('POST', '/admin/keys', { body, key });
const list = (key?: string | null) => t.json('GET', '/admin/keys', { key });
const revoke = (id: number | string, key?: string | null) => t.json('DELETE', `/admin/keys/${id}`, { key });

describe('API keys over HTTP (/admin/keys)', () => {
  it('creates a key that works at once, lists it without the key, and refuses it as soon as it is revoked', async () => {
    const created = await create({ name: '  dialer  ', permissions: ['cati_administrate'] });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const { key, ...info } = created.body;
    expect(key).toMatch(/^cati_[A-Za-z0-9_-]{32}$/);
    expect(info).toEqual({
      id: expect.any(Number),
      name: 'dialer',
      prefix: key.slice(0, 9),
      permissions: ['cati_administrate'],
      projects: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      lastUsedAt: null,
      revokedAt: null,
    });

    const used = await t.json('GET', '/cati/blacklist', { key });
    expect(used.status).toBe(200);

    const listed = await list();
    expect(listed.status).toBe(200);
    const entry = listed.body.find((k: { id: number }) => k.id === info.id);
    expect(entry).toMatchObject({ name: 'dialer', revokedAt: null, lastUsedAt: expect.any(String) });
    expect(Object.keys(entry).sort()).toEqual(['createdAt', 'id', 'lastUsedAt', 'name', 'permissions', 'prefix', 'projects', 'revokedAt']);
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain(key);
    expect(text).not.toContain(hashKey(key));

    const revoked = await revoke(info.id);
    expect(revoked.status).toBe(204);
    expect(revoked.body).toBeUndefined();

    const refused = await t.json('GET', '/cati/blacklist', { key });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    const after = (await list()).body.find((k: { id: number }) => k.id === info.id);
    expect(after.revokedAt).toEqual(expect.any(String));
  });

  it('keeps project limits and several permissions, and a created company_administrate key can manage keys', async () => {
    const created = await create({ name: 'mailer', permissions: ['optout_administrate', 'company_administrate'], projects: ['p1001', 'p1002'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ permissions: ['optout_administrate', 'company_administrate'], projects: ['p1001', 'p1002'] });
    const listedWithIt = await list(created.body.key);
    expect(listedWithIt.status).toBe(200);
    expect(listedWithIt.body.map((k: { name: string }) => k.name)).toContain('mailer');
  });

  it('answers 403 {message} to a key without company_administrate, and an empty 401 without a valid key', async () => {
    const { key } = (await create({ name: 'optout only', permissions: ['optout_administrate', 'cati_administrate', 'cati_integrate'] })).body;
    for (const r of [await list(key), await create({ name: 'x', permissions: ['cati_integrate'] }, key), await revoke(1, key)]) {
      expect(r.status).toBe(403);
      expect(r.body.message).toMatch(/company_administrate/);
    }
    for (const k of [null, 'not-a-known-key-at-all']) {
      const r = await list(k);
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Bearer');
      expect(r.body).toBeUndefined();
    }
  });

  it('answers 400 naming the problem for a bad body, and creates nothing', async () => {
    const before = (await list()).body.length;
    const cases: [unknown, RegExp][] = [
      [{ permissions: ['cati_administrate'] }, /'name'/],
      [{ name: '   ', permissions: ['cati_administrate'] }, /'name'/],
      [{ name: 42, permissions: ['cati_administrate'] }, /'name'/],
      [{ name: 'x'.repeat(101), permissions: ['cati_administrate'] }, /'name' must be at most 100/],
      [{ name: 'a\nb', permissions: ['cati_administrate'] }, /control characters/],
      [{ name: 'n' }, /'permissions' is required/],
      [{ name: 'n', permissions: [] }, /At least one permission/],
      [{ name: 'n', permissions: ['cati_admin'] }, /Unknown permission 'cati_admin'/],
      [{ name: 'n', permissions: 'cati_administrate' }, /'permissions' must be an array/],
      [{ name: 'n', permissions: [1] }, /'permissions' must be an array of strings/],
      [{ name: 'n', permissions: ['optout_administrate'], projects: ['1001'] }, /Project id '1001'/],
      [{ name: 'n', permissions: ['optout_administrate'], projects: 'p1' }, /'projects' must be an array/],
      [{ name: 'n', permissions: ['cati_administrate'], permission: ['x'] }, /Unknown field 'permission'/],
      [['n'], /JSON object/],
      ['n', /JSON object/],
    ];
    for (const [body, message] of cases) {
      const r = await create(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message, JSON.stringify(body)).toMatch(message);
    }
    const noBody = await t.json('POST', '/admin/keys');
    expect(noBody.status).toBe(400);
    const badJson = await t.json('POST', '/admin/keys', { raw: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(badJson.status).toBe(400);
    expect(badJson.body.message).toMatch(/not valid JSON/);
    const form = await t.json('POST', '/admin/keys', { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
    expect((await list()).body.length).toBe(before);
  });

  it('revokes only active stored keys: unknown or already revoked → 404, a malformed id → 400', async () => {
    const { id } = (await create({ name: 'short-lived', permissions: ['cati_integrate'] })).body;
    expect((await revoke(id)).status).toBe(204);
    const again = await revoke(id);
    expect(again.status).toBe(404);
    expect(again.body.message).toMatch(/already revoked/);
    const unknown = await revoke(987654);
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toMatch(/987654/);
    for (const bad of ['abc', '0', '-1', '1.5', '99999999999999999999']) {
      const r = await revoke(bad);
      expect(r.status, bad).toBe(400);
      expect(r.body.message).toMatch(/id must be a positive/);
    }
  });

  it('never lists nor revokes the in-memory keys (CATI_API_KEY, the UI session key)', async () => {
    const session = t.server.ctx.keys.createSessionKey();
    const listed = await list(session);
    expect(listed.status).toBe(200);
    const names = listed.body.map((k: { name: string }) => k.name);
    expect(names).not.toContain('CATI_API_KEY');
    expect(names).not.toContain('UI session');
    // Only stored keys are listed: exactly the rows of api_keys (whatever other tests created before).
    const stored = await t.server.ctx.store.column('SELECT name FROM api_keys ORDER BY id');
    expect(names).toEqual(stored);
    expect(JSON.stringify(listed.body)).not.toContain(TEST_API_KEY);
    // Stored ids start at 1; nothing else can name an in-memory key.
    expect(listed.body.every((k: { id: number }) => Number.isInteger(k.id) && k.id > 0)).toBe(true);
    expect((await t.json('GET', '/optout/settings', { key: session })).status).toBe(200);
  });

  it('refuses other methods with 405 and Allow', async () => {
    const put = await t.json('PUT', '/admin/keys', { body: {} });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
    const get = await t.json('GET', '/admin/keys/1');
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('DELETE');
  });
  it('refuses a key at once when another process revokes it (the keys CLI on the same data dir), though it was just used', async () => {
    const { body } = await create({ name: 'cli-revoked', permissions: ['cati_administrate'] });
    expect((await t.json('GET', '/cati/blacklist', { key: body.key })).status).toBe(200);
    expect((await t.json('GET', '/cati/blacklist', { key: body.key })).status).toBe(200);
    // What `npm run keys -- revoke ID` writes, from a connection of its own.
    expect(await writeFromAnotherConnection(t, 'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [Date.now(), body.id])).toBe(1);
    const status = async () => (await t.json('GET', '/cati/blacklist', { key: body.key })).status;
    if (isSqlite()) expect(await status()).toBe(401); // data_version moved: the very next request asks again
    // PostgreSQL: the revocation's NOTIFY (migration 021) reaches the listener within milliseconds of the commit,
    // racing this request; no query per request.
    else await expect.poll(status, { timeout: 1000, interval: 5 }).toBe(401);
  });
});
