import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('foundation', () => {
  it('GET /healthz answers ok without a key', async () => {
    const r = await t.json('GET', '/healthz', { key: null });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok' });
  });

  it('a /cati/ route without a key is 401 with WWW-Authenticate and an OData error body', async () => {
    const r = await t.json('GET', '/cati/blacklist', { key: null });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer');
    expect(r.body.error.code).toBe('Unauthorized');
  });

  it('a /optout/ route with an unknown key is 401 with an empty body', async () => {
    const res = await t.request('GET', '/optout/lists', { key: 'nope-nope-nope-nope' });
    expect(res.status).toBe(401);
    expect(await res.text()).toBe('');
  });

  it('an unknown /cati/ path is a 404 OData error', async () => {
    const r = await t.json('GET', '/cati/nothing');
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('NotFound');
  });
});
