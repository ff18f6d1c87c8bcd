import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let adminKey: string;
let integrateKey: string;
let anna: number;

const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const post = (path: string, body: unknown) => t.json('POST', path, { body, key: integrateKey });
const audit = (entity: string) =>
  t.server.ctx.store.all<{ action: string; id: string; actor: string; changes: string }>(
    'SELECT action, entity_id AS id, actor, changes FROM audit_log WHERE entity = ? ORDER BY audit_log.id',
    [entity],
  );

beforeAll(async () => {
  t = await startTestServer();
  adminKey = (await t.server.ctx.keys.create('supervisor', ['cati_administrate'])).key;
  integrateKey = (await t.server.ctx.keys.create('dialer', ['cati_integrate'])).key;
  anna = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'anna' } })).body.InterviewerId;
});
afterAll(() => t.close());

describe('/cati/breaktypes', () => {
  it('a row appears when ingest first names a type (Name and IsPaid from the record, MaxMinutes null); later records never rename it', async () => {
    expect((await t.json('GET', '/cati/breaktypes(5)')).status).toBe(404);
    await post('/cati/breakhistory', { Time: ago(30), InterviewerId: anna, BreakTypeId: 5, BreakTypeName: 'Smoke', IsPaid: true, Duration: 60 });
    await post('/cati/breakhistory', { Time: ago(20), InterviewerId: anna, BreakTypeId: 5, BreakTypeName: 'Renamed by the dialer', IsPaid: false, Duration: 60 });
    await post('/cati/breakhistory', { Time: ago(10), InterviewerId: anna, BreakTypeId: 6, BreakTypeName: 'Toilet', Duration: 60 });
    const r = await t.json('GET', '/cati/breaktypes?$filter=BreakTypeId ge 5&$orderby=BreakTypeId');
    expect(r.body.value).toEqual([
      { '@odata.etag': 'W/"1"', BreakTypeId: 5, Name: 'Smoke', MaxMinutes: null, IsPaid: true },
      { '@odata.etag': 'W/"1"', BreakTypeId: 6, Name: 'Toilet', MaxMinutes: null, IsPaid: false },
    ]);
  });

  it('supervisors change Name, MaxMinutes, IsPaid with PUT or PATCH (If-Match honoured), each change audited', async () => {
    const put = await t.json('PUT', '/cati/breaktypes(5)', { body: { MaxMinutes: 10 }, key: adminKey, headers: { 'if-match': 'W/"1"' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ BreakTypeId: 5, Name: 'Smoke', MaxMinutes: 10, IsPaid: true });
    expect((await t.json('PATCH', '/cati/breaktypes(5)', { body: { Name: 'x' }, key: adminKey, headers: { 'if-match': 'W/"1"' } })).status).toBe(412);
    const p = await t.json('PATCH', '/cati/breaktypes(5)', { body: { Name: 'Smoking break', IsPaid: false, MaxMinutes: null }, key: adminKey });
    expect(p.body).toMatchObject({ Name: 'Smoking break', IsPaid: false, MaxMinutes: null });
    const rows = await audit('breaktypes');
    expect(rows.map((r) => [r.action, r.id, r.actor])).toEqual([['updated', '5', 'supervisor'], ['updated', '5', 'supervisor']]);
    expect(JSON.parse(rows[1]!.changes)).toEqual({ Name: ['Smoke', 'Smoking break'], MaxMinutes: [10, null], IsPaid: [true, false] });
  });

  it('MaxMinutes below 0 or not whole → 400; unknown type → 404; POST and DELETE → 405; the dialer key cannot edit (403)', async () => {
    for (const bad of [-1, 1.5, '10']) {
      const r = await t.json('PATCH', '/cati/breaktypes(6)', { body: { MaxMinutes: bad }, key: adminKey });
      expect(r.status, String(bad)).toBe(400);
      expect(r.body.error.message).toMatch(/MaxMinutes/);
    }
    expect((await t.json('PATCH', '/cati/breaktypes(999)', { body: { MaxMinutes: 3 }, key: adminKey })).status).toBe(404);
    expect((await t.json('POST', '/cati/breaktypes', { body: { Name: 'x' }, key: adminKey })).status).toBe(405);
    expect((await t.request('DELETE', '/cati/breaktypes(6)', { key: adminKey })).status).toBe(405);
    expect((await t.json('PATCH', '/cati/breaktypes(6)', { body: { MaxMinutes: 3 }, key: integrateKey })).status).toBe(403);
    expect((await t.json('GET', '/cati/breaktypes(6)')).body.MaxMinutes).toBeNull();
  });
});

describe('/cati/extendedstatuses', () => {
  it('is seeded with a default table covering all six categories', async () => {
    const r = await t.json('GET', '/cati/extendedstatuses?$orderby=Code&$top=1000');
    const categories = new Set(r.body.value.map((o: { Category: string }) => o.Category));
    expect([...categories].sort()).toEqual(['Appointment', 'Complete', 'Ineligible', 'NoContact', 'Other', 'Refusal']);
    expect(r.body.value.slice(0, 2)).toEqual([
      { '@odata.etag': 'W/"1"', Code: 1, Name: 'Completed interview', Category: 'Complete' },
      { '@odata.etag': 'W/"1"', Code: 2, Name: 'No answer', Category: 'NoContact' },
    ]);
    expect((await t.json('GET', "/cati/extendedstatuses?$filter=Category eq 'Refusal'")).body.value.map((o: { Code: number }) => o.Code)).toEqual([5]);
  });

  it('POST / PUT / PATCH / DELETE, audited; duplicate Code → 409; bad Category → 400', async () => {
    const created = await t.json('POST', '/cati/extendedstatuses', { body: { Code: 42, Name: 'Quota full', Category: 'Ineligible' }, key: adminKey });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toMatch(/\/cati\/extendedstatuses\(42\)$/);
    const dup = await t.json('POST', '/cati/extendedstatuses', { body: { Code: 42, Name: 'Again', Category: 'Other' }, key: adminKey });
    expect(dup.status).toBe(409);
    expect(dup.body.error.details[0]).toMatchObject({ code: 'ExistingId', message: '42' });
    expect((await t.json('POST', '/cati/extendedstatuses', { body: { Code: 43, Name: 'x', Category: 'Maybe' }, key: adminKey })).status).toBe(400);
    expect((await t.json('POST', '/cati/extendedstatuses', { body: { Name: 'x', Category: 'Other' }, key: adminKey })).status).toBe(400);
    expect((await t.json('PUT', '/cati/extendedstatuses(42)', { body: { Category: 'Other' }, key: adminKey })).body).toMatchObject({ Name: 'Quota full', Category: 'Other' });
    expect((await t.json('PATCH', '/cati/extendedstatuses(42)', { body: { Name: 'Quota reached' }, key: adminKey })).body).toMatchObject({ Name: 'Quota reached', Category: 'Other' });
    expect((await t.request('DELETE', '/cati/extendedstatuses(42)', { key: adminKey })).status).toBe(204);
    expect((await t.json('GET', '/cati/extendedstatuses(42)')).status).toBe(404);
    expect((await audit('extendedstatuses')).map((r) => r.action)).toEqual(['created', 'updated', 'updated', 'deleted']);
  });
});

describe('/cati/callcenters TimeZone', () => {
  it('defaults to the server\'s zone; POST, PUT and PATCH accept an IANA name, audited', async () => {
    const main = (await t.json('GET', '/cati/callcenters(1)')).body;
    expect(main.TimeZone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    const created = await t.json('POST', '/cati/callcenters', { body: { Name: 'Kiribati', TimeZone: 'Pacific/Kiritimati' }, key: adminKey });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ Name: 'Kiribati', TimeZone: 'Pacific/Kiritimati' });
    const id = created.body.CallCenterId;
    expect((await t.json('PUT', `/cati/callcenters(${id})`, { body: { TimeZone: 'America/New_York' }, key: adminKey })).body.TimeZone).toBe('America/New_York');
    expect((await t.json('PATCH', `/cati/callcenters(${id})`, { body: { TimeZone: 'europe/amsterdam' }, key: adminKey })).body.TimeZone).toBe('Europe/Amsterdam');
    expect((await t.json('POST', '/cati/callcenters', { body: { Name: 'Plain' }, key: adminKey })).body.TimeZone).toBe(main.TimeZone);
    const rows = await audit('callcenters');
    expect(rows.map((r) => r.action)).toEqual(['created', 'updated', 'updated', 'created']);
    expect(JSON.parse(rows[1]!.changes)).toEqual({ TimeZone: ['Pacific/Kiritimati', 'America/New_York'] });
  });

  it('an unknown zone name → 400 on POST, PUT and PATCH, nothing stored', async () => {
    for (const zone of ['Mars/Olympus_Mons', '+01:00', '', 'Europe/Amsterdam; DROP TABLE x']) {
      const r = await t.json('POST', '/cati/callcenters', { body: { Name: `Bad ${zone}`, TimeZone: zone }, key: adminKey });
      expect(r.status, zone).toBe(400);
      expect(r.body.error.message).toMatch(/TimeZone/);
      expect((await t.json('PATCH', '/cati/callcenters(1)', { body: { TimeZone: zone }, key: adminKey })).status).toBe(400);
      expect((await t.json('PUT', '/cati/callcenters(1)', { body: { TimeZone: zone }, key: adminKey })).status).toBe(400);
    }
    expect((await t.json('GET', "/cati/callcenters?$filter=startswith(Name,'Bad')")).body.value).toEqual([]);
  });
});
