import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRow } from '../helpers/audit.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// GET /admin/audit (docs/audit.md#audit): newest first, filters, keyset paging, CSV, permissions, append-only.
let t: TestServer;
let admin: string;
let adminId: number;
let clerk: string;
let clerkId: number;

beforeAll(async () => {
  t = await startTestServer();
  ({ key: admin, info: { id: adminId } } = await t.server.ctx.keys.create('auditor', ['company_administrate']));
  ({ key: clerk, info: { id: clerkId } } = await t.server.ctx.keys.create('clerk', ['cati_administrate']));
  // 25 groups by the clerk, then a blacklist number with a formula-like comment by the test key.
  for (let i = 0; i < 25; i++) expect((await t.json('POST', '/cati/groups', { body: { Name: `G${i}` }, key: clerk })).status).toBe(201);
  expect((await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '555', Comment: '=HYPERLINK("x")' } })).status).toBe(201);
});
afterAll(() => t.close());

const get = (query: string, key: string | null = admin) => t.json<{ value: AuditRow[]; '@odata.nextLink'?: string }>('GET', `/admin/audit${query}`, { key });

describe('GET /admin/audit', () => {
  it('answers {value} newest first with the row fields of docs/audit.md#audit (Time in UTC ms, Changes an object)', async () => {
    const r = await get('');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    const [first, second] = r.body.value;
    expect(Object.keys(first!)).toEqual(['Id', 'Time', 'ActorKeyId', 'ActorUserId', 'Actor', 'Action', 'Entity', 'EntityId', 'Changes', 'EntityName', 'ChangeNames']);
    expect(first).toMatchObject({ ActorKeyId: null, ActorUserId: null, Actor: 'CATI_API_KEY', Action: 'created', Entity: 'blacklist', Changes: { TelephoneNumber: '555' } });
    expect(first!.Time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(second).toMatchObject({ ActorKeyId: clerkId, Actor: 'clerk', Entity: 'groups', Changes: { Name: 'G24', Description: null, ParentGroups: [] } });
    const times = r.body.value.map((row) => Date.parse(row.Time));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('pages with $top and @odata.nextLink ($skiptoken) through every row exactly once', async () => {
    const all = (await get('?$top=1000')).body.value;
    expect(all.length).toBeGreaterThanOrEqual(28); // two keys, 25 groups, one number
    const seen: number[] = [];
    let next: string | undefined = `${t.url}/admin/audit?$top=7`;
    for (let pages = 0; next && pages < 20; pages++) {
      const res: { status: number; body: { value: AuditRow[]; '@odata.nextLink'?: string } } = await t.json('GET', next.slice(t.url.length), { key: admin });
      expect(res.status).toBe(200);
      expect(res.body.value.length).toBeLessThanOrEqual(7);
      seen.push(...res.body.value.map((row: AuditRow) => row.Id));
      next = res.body['@odata.nextLink'];
      if (next) expect(next).toMatch(new RegExp(`^${t.url}/admin/audit\\?.*\\$skiptoken=`));
    }
    expect(next).toBeUndefined();
    expect(seen).toEqual(all.map((row) => row.Id));
    expect((await get('?$top=100')).body.value).toHaveLength(Math.min(100, all.length));
  });

  it('filters by entity (exact), actor (key id or name) and time (from inclusive, to exclusive)', async () => {
    const groups = (await get('?entity=groups&$top=1000')).body.value;
    expect(groups).toHaveLength(25);
    expect((await get('?entity=group')).body.value).toEqual([]);
    expect((await get(`?actor=${clerkId}&$top=1000`)).body.value.map((r) => r.Id)).toEqual(groups.map((r) => r.Id));
    expect((await get('?actor=clerk&$top=1000')).body.value).toHaveLength(25);
    expect((await get('?actor=cli&entity=keys')).body.value.map((r) => r.EntityId)).toEqual([String(clerkId), String(adminId)]);
    const pivot = groups[10]!;
    const from = (await get(`?entity=groups&$top=1000&from=${pivot.Time}`)).body.value;
    expect(from.every((r) => r.Time >= pivot.Time)).toBe(true);
    expect(from.map((r) => r.Id)).toContain(pivot.Id);
    const to = (await get(`?entity=groups&$top=1000&to=${pivot.Time}`)).body.value;
    expect(to.every((r) => r.Time < pivot.Time)).toBe(true);
    expect(from.length + to.length).toBe(25);
    expect((await get('?from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z')).body.value).toEqual([]);
  });

  it('malformed parameters → 400: bad times, $top outside 1..1000, a forged $skiptoken, unknown options', async () => {
    for (const q of ['?from=yesterday', '?to=2026-13-01T00:00:00Z', '?$top=0', '?$top=1001', '?$top=ten', '?$skiptoken=abc', '?$format=xml', '?$filter=x', '?entity=a&entity=b']) {
      const r = await t.json<{ message: string }>('GET', `/admin/audit${q}`, { key: admin });
      expect(r.status, q).toBe(400);
      expect(r.body.message, q).toEqual(expect.any(String));
    }
  });

  it('$format=csv streams every matching row as an RFC 4180 attachment with a BOM and the formula guard', async () => {
    const res = await t.request('GET', '/admin/audit?$format=csv&entity=blacklist', { key: admin });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="audit-log\.csv"$/);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const rows = parse(Buffer.from(bytes).toString('utf8').slice(1), { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ Actor: 'CATI_API_KEY', ActorKeyId: '', Action: 'created', Entity: 'blacklist' });
    expect(JSON.parse(rows[0]!.Changes!)).toEqual({ TelephoneNumber: '555', Type: 'Equal', Comment: '=HYPERLINK("x")' });
    const all = parse((await (await t.request('GET', '/admin/audit?$format=csv', { key: admin })).text()).slice(1), { columns: true });
    expect(all).toHaveLength((await get('?$top=1000')).body.value.length);
    // An actor name a spreadsheet would run as a formula is guarded with a leading ' (as the opt-out export).
    const formula = (await t.server.ctx.keys.create('=SUM(1,2)', ['cati_administrate'])).key;
    expect((await t.json('POST', '/cati/groups', { body: { Name: 'By a formula' }, key: formula })).status).toBe(201);
    const csv = await (await t.request('GET', '/admin/audit?$format=csv&entity=groups', { key: admin })).text();
    const newest = (parse(csv.slice(1), { columns: true }) as Record<string, string>[])[0]!;
    expect(newest.Actor).toBe("'=SUM(1,2)");
    expect(csv).toContain(`\r\n`);
  });

  it('needs company_administrate (403) and a Bearer key (401; Basic is not accepted)', async () => {
    expect((await get('', clerk)).status).toBe(403);
    expect((await get('', null)).status).toBe(401);
    const basic = await t.request('GET', '/admin/audit', { key: null, headers: { authorization: `Basic ${Buffer.from(`x:${admin}`).toString('base64')}` } });
    expect(basic.status).toBe(401);
  });

  it('is append-only through the API: POST, PUT, PATCH, DELETE → 405 with Allow, nothing changes', async () => {
    const before = (await get('?$top=1000')).body.value;
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      for (const path of ['/admin/audit', `/admin/audit/${before[0]!.Id}`]) {
        const r = await t.json(method, path, { key: admin, body: { Action: 'forged' } });
        expect(r.status, `${method} ${path}`).toBe(405);
        expect(r.headers.get('allow')).toBe('GET, HEAD');
      }
    }
    expect((await get('?$top=1000')).body.value).toEqual(before);
    await expect(t.server.ctx.store.run('DELETE FROM audit_log')).rejects.toThrow(/append-only/);
  });
});
