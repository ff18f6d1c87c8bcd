import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../server/auth/api-keys.ts';
import { UI_SESSION_IDLE_MS, UI_TOKEN_TTL_MS } from '../../server/auth/ui-sessions.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const ui = () => t.server.ctx.keys.ui;
const exchange = (token: unknown) => t.json('POST', '/auth/ui-token', { body: { token }, key: null });

describe('The UI link: a single-use token exchanged for a session key (docs/people.md#ui-sessions)', () => {
  it('answers a session key that the API accepts; the same token is refused the second time', async () => {
    const token = await ui().mintToken();
    const first = await exchange(token);
    expect(first.status).toBe(201);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.body).toEqual({ key: expect.stringMatching(/^uis_[A-Za-z0-9_-]{43}$/), idleTimeoutSeconds: 12 * 3600 });
    expect((await t.json('GET', '/cati/blacklist', { key: first.body.key })).status).toBe(200);

    const again = await exchange(token);
    expect(again.status).toBe(401);
    expect(again.body).toBeUndefined();
    // The token itself is no key.
    expect((await t.json('GET', '/cati/blacklist', { key: token })).status).toBe(401);
  });

  it('refuses a token older than 15 minutes, and malformed bodies with 400', async () => {
    const stale = await ui().mintToken(Date.now() - UI_TOKEN_TTL_MS - 1);
    expect((await exchange(stale)).status).toBe(401);
    expect((await exchange('uit_' + 'x'.repeat(43))).status).toBe(401);
    for (const bad of [undefined, 42, '', 'session_abc', 'uit_short']) expect((await exchange(bad)).status, String(bad)).toBe(400);
    const get = await t.json('GET', '/auth/ui-token', { key: null });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('stores only digests of tokens and session keys', async () => {
    const token = await ui().mintToken();
    const { key } = (await exchange(await ui().mintToken())).body;
    const dump = JSON.stringify(await t.server.ctx.store.all('SELECT * FROM ui_tokens')) + JSON.stringify(await t.server.ctx.store.all('SELECT * FROM ui_sessions'));
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(key);
    expect(dump).toContain(hashKey(token));
    expect(dump).toContain(hashKey(key));
  });

  it('expires a session 12 hours after its last use', async () => {
    const { key } = (await exchange(await ui().mintToken())).body;
    const id = (await ui().authenticate(key))!.id;
    await t.server.ctx.store.run('UPDATE ui_sessions SET last_used_at = ? WHERE id = ?', [Date.now() - UI_SESSION_IDLE_MS + 60_000, id]);
    expect((await t.json('GET', '/cati/blacklist', { key })).status).toBe(200); // 11h59m idle: alive, and used now
    await t.server.ctx.store.run('UPDATE ui_sessions SET last_used_at = ? WHERE id = ?', [Date.now() - UI_SESSION_IDLE_MS - 1, id]);
    expect((await t.json('GET', '/cati/blacklist', { key })).status).toBe(401);
  });

  it('lists live sessions (the caller marked current, never a key) and revokes one at once, audited', async () => {
    const a = (await exchange(await ui().mintToken())).body.key;
    const b = (await exchange(await ui().mintToken())).body.key;
    const listed = await t.json('GET', '/admin/ui-sessions', { key: a });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toMatch(/uis_/);
    const current = listed.body.filter((s: { current: boolean }) => s.current);
    expect(current).toHaveLength(1);
    const bId = (await ui().authenticate(b))!.id;
    expect(listed.body.map((s: { id: number }) => s.id)).toContain(bId);

    expect((await t.json('DELETE', `/admin/ui-sessions/${bId}`, { key: a })).status).toBe(204);
    expect((await t.json('GET', '/cati/blacklist', { key: b })).status).toBe(401);
    expect((await t.json('DELETE', `/admin/ui-sessions/${bId}`, { key: a })).status).toBe(404);
    expect((await t.json('DELETE', '/admin/ui-sessions/abc', { key: a })).status).toBe(400);
    // Sessions are their own entity in the audit log (docs/audit.md#audit), never `keys`.
    const audit = await t.server.ctx.store.all("SELECT actor, action, entity, entity_id FROM audit_log WHERE entity = 'sessions' AND entity_id = ? ORDER BY id", [String(bId)]);
    expect(audit).toEqual([
      { actor: `UI session ${bId}`, action: 'login', entity: 'sessions', entity_id: String(bId) },
      { actor: `UI session ${current[0].id}`, action: 'revoked', entity: 'sessions', entity_id: String(bId) },
    ]);
    expect(await t.server.ctx.store.value("SELECT count(*) FROM audit_log WHERE entity = 'keys'")).toEqual(0);
  });

  it('signs the caller out with DELETE /admin/ui-sessions/current; other keys get 400', async () => {
    const key = (await exchange(await ui().mintToken())).body.key;
    expect((await t.json('DELETE', '/admin/ui-sessions/current', { key })).status).toBe(204);
    expect((await t.json('GET', '/cati/blacklist', { key })).status).toBe(401);
    expect((await t.json('DELETE', '/admin/ui-sessions/current')).status).toBe(400);
    expect((await t.json('GET', '/admin/ui-sessions', { key: null })).status).toBe(401);
  });
});
