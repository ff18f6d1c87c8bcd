import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseUnavailableError, type Store } from '../../server/db/store.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let storedKey: string;

beforeAll(async () => {
  t = await startTestServer();
  storedKey = (await t.server.ctx.keys.create('supervisor', ['company_administrate'])).key;
});
afterAll(() => t.close());

const METHODS = ['all', 'get', 'value', 'column', 'rows', 'run', 'exec', 'transaction'] as const;

/** Makes every statement of the server's store fail as a lost connection does, until the returned function restores it. */
function loseDatabase(store: Store): () => void {
  const patched = store as unknown as Record<string, unknown>;
  for (const m of METHODS) patched[m] = () => Promise.reject(new DatabaseUnavailableError('connect ECONNREFUSED 10.0.0.5:5432'));
  return () => {
    for (const m of METHODS) delete patched[m];
  };
}

describe('The database unreachable while the server runs (docs/deployment.md#postgresql)', () => {
  it('answers 503 with Retry-After: 5 in each interface’s error shape, never leaks the cause, and recovers with the database', async () => {
    const restore = loseDatabase(t.server.ctx.store);
    try {
      const odata = await t.json('GET', '/cati/Groups', { key: storedKey }); // the stored key's lookup fails
      expect(odata.status).toBe(503);
      expect(odata.headers.get('retry-after')).toBe('5');
      expect(odata.body).toEqual({ error: { code: 'ServiceUnavailable', message: expect.stringMatching(/database is unavailable/) } });

      const admin = await t.json('GET', '/admin/audit'); // an in-memory key: the audit query itself fails
      expect(admin.status).toBe(503);
      expect(admin.headers.get('retry-after')).toBe('5');
      expect(admin.body).toEqual({ message: expect.stringMatching(/database is unavailable/) });
      expect(JSON.stringify([odata.body, admin.body])).not.toContain('10.0.0.5');
    } finally {
      restore();
    }
    expect((await t.json('GET', '/admin/audit', { key: storedKey })).status).toBe(200);
  });
});
