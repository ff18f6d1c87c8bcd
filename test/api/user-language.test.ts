/**
 * The person's language (docs/people.md#language): `GET /auth/me` answers `Language`, `PATCH /auth/me
 * {"Language"}` stores it with the signed-in user (audited), an unknown language is a 400 naming it, and a caller
 * that is not a user (an API key, the UI link's session) gets 409. `/admin/users` rows carry it too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let key: string;
let userId: number;
const PASSWORD = 'language password 1234';

beforeAll(async () => {
  t = await startTestServer();
  const created = await t.json('POST', '/admin/users', { body: { Name: 'anke', Role: 'viewer', Password: PASSWORD } });
  userId = created.body.UserId;
  expect(created.body.Language).toBeNull();
  key = (await t.json('POST', '/auth/login', { body: { Name: 'anke', Password: PASSWORD }, key: null })).body.Key;
});
afterAll(() => t.close());

describe('PATCH /auth/me {"Language"}', () => {
  it('starts with no language, stores the one chosen, answers it on /auth/me and in /admin/users, and null clears it', async () => {
    expect((await t.json('GET', '/auth/me', { key })).body.Language).toBeNull();
    const set = await t.json('PATCH', '/auth/me', { key, body: { Language: 'nl' } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ Kind: 'user', Name: 'anke', Role: 'viewer', Language: 'nl' });
    expect((await t.json('GET', '/auth/me', { key })).body.Language).toBe('nl');
    expect((await t.json('GET', `/admin/users/${userId}`)).body.Language).toBe('nl');
    expect((await t.json('GET', '/admin/users')).body.value.find((u: any) => u.UserId === userId).Language).toBe('nl');
    expect((await t.json('PATCH', '/auth/me', { key, body: { Language: 'DE' } })).body.Language).toBe('de');
    expect((await t.json('PATCH', '/auth/me', { key, body: { Language: null } })).body.Language).toBeNull();
    expect((await t.json('GET', '/auth/me', { key })).body.Language).toBeNull();
  });

  it('is audited as an update of the user, in the person’s own name', async () => {
    const rows = (await t.json('GET', `/admin/audit?entity=users`)).body.value.filter((r: any) => String(r.EntityId) === String(userId) && r.Action === 'updated');
    expect(rows.map((r: any) => r.Changes)).toEqual([{ Language: ['de', null] }, { Language: ['nl', 'de'] }, { Language: [null, 'nl'] }]);
    expect(rows.every((r: any) => r.Actor === 'anke')).toBe(true);
  });

  it('an unknown language → 400 naming it, nothing stored; other fields and bodies → 400', async () => {
    const bad = await t.json('PATCH', '/auth/me', { key, body: { Language: 'fr' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/'fr'/);
    expect(bad.body.message).toMatch(/en, nl, de/);
    expect((await t.json('PATCH', '/auth/me', { key, body: { Language: 7 } })).status).toBe(400);
    expect((await t.json('PATCH', '/auth/me', { key, body: { Role: 'administrator' } })).status).toBe(400);
    expect((await t.json('PATCH', '/auth/me', { key, body: {} })).status).toBe(400);
    expect((await t.json('PATCH', '/auth/me', { key, body: [] })).status).toBe(400);
    expect((await t.json('GET', '/auth/me', { key })).body).toMatchObject({ Role: 'viewer', Language: null });
  });

  it('an API key or a UI-link session has no language: 409 saying so; without a key 401', async () => {
    const apiKey = await t.json('PATCH', '/auth/me', { body: { Language: 'nl' } });
    expect(apiKey.status).toBe(409);
    expect(apiKey.body.message).toMatch(/API key is not a person's/);
    expect((await t.json('GET', '/auth/me')).body).toMatchObject({ Kind: 'key', Language: null });
    const link = await t.json('POST', '/auth/ui-token', { body: { token: await t.server.ctx.keys.ui.mintToken() }, key: null });
    const ui = await t.json('PATCH', '/auth/me', { key: link.body.key, body: { Language: 'nl' } });
    expect(ui.status).toBe(409);
    expect(ui.body.message).toMatch(/UI-link session/);
    expect((await t.json('PATCH', '/auth/me', { key: null, body: { Language: 'nl' } })).status).toBe(401);
  });
});
