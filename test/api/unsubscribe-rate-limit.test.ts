import { afterEach, describe, expect, it } from 'vitest';
import type { UnsubscribeRateLimits } from '../../server/config.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const MINUTE = 60_000;
const servers: TestServer[] = [];

/** A server with small limits (fresh counters); bursts below stay within a few dozen requests. */
async function serverWith(limits: Partial<UnsubscribeRateLimits>, trustProxy = false) {
  const t = await startTestServer({
    trustProxy,
    rateLimits: {
      pages: { limit: 5, windowMs: MINUTE },
      invalidKeys: { limit: 3, windowMs: 10 * MINUTE },
      keyPosts: { limit: 4, windowMs: MINUTE },
      ...limits,
    },
  });
  servers.push(t);
  const listId = (await t.json('POST', '/optout/lists', { body: { projectId: 'p1' } })).body.id as number;
  const keyFor = async (emailAddress: string) =>
    (await t.json('POST', `/optout/lists/${listId}/unsubscribe-links`, { body: { emailAddress } })).body.key as string;
  const hit = async (method: string, path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(t.url + path, { method, headers });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), headers: res.headers, html: await res.text() };
  };
  return { t, listId, keyFor, hit };
}

afterEach(async () => {
  for (const t of servers.splice(0)) await t.close();
});

describe('unsubscribe rate limits', () => {
  it('answers 429 with Retry-After and an HTML page after the per-address page limit', async () => {
    const { hit } = await serverWith({});
    for (let i = 0; i < 5; i++) expect((await hit('GET', '/unsubscribe')).status).toBe(200);
    const r = await hit('GET', '/unsubscribe');
    expect(r.status).toBe(429);
    expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(r.retryAfter)).toBeLessThanOrEqual(60);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.html).toContain('Please wait a moment');
  });

  it('limits invalid keys separately, and counts them toward the page limit too', async () => {
    const { hit } = await serverWith({ pages: { limit: 10, windowMs: MINUTE } });
    for (let i = 0; i < 3; i++) expect((await hit('GET', `/unsubscribe?key=guess${i}`)).status).toBe(404);
    const refused = await hit('GET', '/unsubscribe?key=guess3');
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(60);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(600);
    expect((await hit('POST', '/unsubscribe')).status).toBe(429);
    // 5 requests counted so far; the page limit of 10 leaves 5 ordinary ones.
    for (let i = 0; i < 5; i++) expect((await hit('GET', '/unsubscribe')).status).toBe(200);
    expect((await hit('GET', '/unsubscribe')).status).toBe(429);
  });

  it('never refuses a valid-key POST because of the per-address limits', async () => {
    const { t, listId, keyFor, hit } = await serverWith({});
    const keys: string[] = [];
    for (let i = 0; i < 12; i++) keys.push(await keyFor(`user${i}@example.com`));
    for (let i = 0; i < 5; i++) await hit('GET', `/unsubscribe?key=bad${i}`);
    expect((await hit('GET', '/unsubscribe')).status).toBe(429);
    // A mailbox provider sends one-click POSTs for many recipients from one address.
    for (const key of keys) {
      const r = await hit('POST', `/unsubscribe?key=${key}`, { 'content-type': 'application/x-www-form-urlencoded' });
      expect(r.status).toBe(200);
    }
    expect((await t.json('GET', `/optout/lists/${listId}/emails`)).body.totalCount).toBe(12);
    // The confirm page (GET) is an ordinary page request and stays limited.
    expect((await hit('GET', `/unsubscribe?key=${keys[0]}`)).status).toBe(429);
  });

  it('caps valid-key POSTs per list and address', async () => {
    const { keyFor, hit } = await serverWith({});
    const key = await keyFor('busy@example.com');
    for (let i = 0; i < 4; i++) expect((await hit('POST', `/unsubscribe?key=${key}`)).status).toBe(200);
    const r = await hit('POST', `/unsubscribe?key=${key}`);
    expect(r.status).toBe(429);
    expect(Number(r.retryAfter)).toBeLessThanOrEqual(60);
    const sameAddressOtherKey = await keyFor('BUSY@example.com');
    expect((await hit('POST', `/unsubscribe/${sameAddressOtherKey}`)).status).toBe(429);
    expect((await hit('POST', `/unsubscribe?key=${await keyFor('calm@example.com')}`)).status).toBe(200);
  });

  it('with --trust-proxy counts X-Forwarded-For clients, IPv6 per /64 and mapped IPv4 as IPv4', async () => {
    const { hit } = await serverWith({}, true);
    const from = (ip: string) => hit('GET', '/unsubscribe', { 'x-forwarded-for': ip });
    for (let i = 1; i <= 5; i++) expect((await from(`2001:db8:1:2::${i}`)).status).toBe(200);
    expect((await from('2001:db8:1:2:ffff::9')).status).toBe(429);
    expect((await from('2001:db8:1:3::1')).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await from('203.0.113.9')).status).toBe(200);
    expect((await from('::ffff:203.0.113.9')).status).toBe(429);
    expect((await from('203.0.113.10')).status).toBe(200);
  });

  it('without --trust-proxy ignores X-Forwarded-For', async () => {
    const { hit } = await serverWith({});
    for (let i = 0; i < 5; i++) expect((await hit('GET', '/unsubscribe', { 'x-forwarded-for': `198.51.100.${i}` })).status).toBe(200);
    expect((await hit('GET', '/unsubscribe', { 'x-forwarded-for': '198.51.100.200' })).status).toBe(429);
  });

  it('decides before reading the page settings: refused requests never touch the database', async () => {
    const { t, hit } = await serverWith({});
    for (let i = 0; i < 5; i++) expect((await hit('GET', '/unsubscribe')).status).toBe(200);
    // From here on any read of the settings fails; refusals must not need one.
    await t.server.ctx.store.exec('ALTER TABLE settings RENAME TO settings_away');
    try {
      for (let i = 0; i < 3; i++) {
        const r = await hit('GET', i === 1 ? '/unsubscribe/some/where' : '/unsubscribe?key=guess');
        expect(r.status).toBe(429);
        expect(r.html).toMatch(/<html/i);
      }
    } finally {
      await t.server.ctx.store.exec('ALTER TABLE settings_away RENAME TO settings');
    }
  });
});
