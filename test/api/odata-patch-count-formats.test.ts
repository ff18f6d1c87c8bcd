import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const created = async (path: string, body: unknown) => {
  const r = await t.json('POST', path, { body });
  expect(r.status).toBe(201);
  return r.body;
};
const auditOf = (entity: string, id: number | string) =>
  t.server.ctx.store.all<{ action: string; changes: string }>('SELECT action, changes FROM audit_log WHERE entity = ? AND entity_id = ? ORDER BY id', [
    entity,
    String(id),
  ]);

describe('PATCH (merge) on every entity that accepts PUT', () => {
  it('blacklist: only the fields sent change; If-Match as for PUT; 200 with the entity; audited', async () => {
    const item = await created('/cati/blacklist', { TelephoneNumber: '0201234567', Type: 'StartWith', Comment: 'first' });
    const stale = await t.json('PATCH', `/cati/blacklist(${item.Id})`, { body: { Comment: 'x' }, headers: { 'if-match': 'W/"99"' } });
    expect(stale.status).toBe(412);
    const r = await t.json('PATCH', `/cati/blacklist(${item.Id})`, { body: { Comment: 'second' }, headers: { 'if-match': item['@odata.etag'] } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ Id: item.Id, TelephoneNumber: '0201234567', Type: 'StartWith', Comment: 'second', '@odata.etag': 'W/"2"' });
    expect(r.headers.get('etag')).toBe('W/"2"');
    expect((await t.json('PATCH', `/cati/blacklist(${item.Id})`, { body: { Comment: null } })).body.Comment).toBeNull(); // no If-Match: allowed
    expect((await auditOf('blacklist', item.Id)).map((a) => [a.action, JSON.parse(a.changes)])).toEqual([
      ['created', { TelephoneNumber: '0201234567', Type: 'StartWith', Comment: 'first' }],
      ['updated', { Comment: ['first', 'second'] }],
      ['updated', { Comment: ['second', null] }],
    ]);
  });

  it('unknown or read-only properties → 400 naming every one of them, and nothing changes', async () => {
    const item = await created('/cati/blacklist', { TelephoneNumber: '555' });
    const r = await t.json('PATCH', `/cati/blacklist(${item.Id})`, { body: { Comment: 'new', Created: '2020-01-01T00:00:00Z', Colour: 'red', comment: 'x' } });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/unknown properties 'Colour', 'comment' \(did you mean 'Comment'\?\)/);
    expect(r.body.error.message).toMatch(/read-only property 'Created' cannot be changed/);
    const key = await t.json('PATCH', `/cati/blacklist(${item.Id})`, { body: { Id: item.Id + 1 } });
    expect(key.body.error.message).toMatch(/read-only property 'Id'/);
    expect((await t.json('GET', `/cati/blacklist(${item.Id})`)).body).toMatchObject({ Comment: null, '@odata.etag': 'W/"1"' });
    // The key itself (unchanged) and instance annotations are harmless, as generic clients send them.
    const same = await t.json('PATCH', `/cati/blacklist(${item.Id})`, { body: { Id: item.Id, '@odata.etag': item['@odata.etag'], Comment: 'ok' } });
    expect(same.status).toBe(200);
    expect((await t.json('PATCH', `/cati/blacklist(${item.Id})`, { body: [{ Comment: 'x' }] })).status).toBe(400);
    expect((await t.json('PATCH', '/cati/blacklist(999999)', { body: { Comment: 'x' } })).status).toBe(404);
  });

  it('groups: Name changes, Description and ParentGroups keep their values; GroupId is read-only', async () => {
    const parent = await created('/cati/groups', { Name: 'Patch parent' });
    const g = await created('/cati/groups', { Name: 'Patch me', Description: 'kept', ParentGroups: [parent.GroupId] });
    const r = await t.json('PATCH', `/cati/groups(${g.GroupId})`, { body: { Name: 'Patched' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ Name: 'Patched', Description: 'kept', ParentGroups: [parent.GroupId] });
    expect(JSON.parse((await auditOf('groups', g.GroupId)).at(-1)!.changes)).toEqual({ Name: ['Patch me', 'Patched'] });
    expect((await t.json('PATCH', `/cati/groups(${g.GroupId})`, { body: { GroupId: 12345 } })).status).toBe(400);
  });

  it('interviewerproperties: Password and ParentGroups are writable, LockedDate and PwdSetDate are not; the password is not audited', async () => {
    const i = await created('/cati/interviewerproperties', { Name: 'patch.me', DisplayName: 'Pat', Password: 'secret-1' });
    const r = await t.json('PATCH', `/cati/interviewerproperties(${i.InterviewerId})`, { body: { Password: 'secret-2', Location: 'Desk 4' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ Name: 'patch.me', DisplayName: 'Pat', Location: 'Desk 4' });
    expect(r.body).not.toHaveProperty('Password');
    const audit = (await auditOf('interviewers', i.InterviewerId)).at(-1)!;
    expect(JSON.parse(audit.changes)).toEqual({ Location: [null, 'Desk 4'], Password: [null, '(changed)'] });
    expect(audit.changes).not.toContain('secret');
    const bad = await t.json('PATCH', `/cati/interviewerproperties(${i.InterviewerId})`, { body: { LockedDate: null, PwdSetDate: null } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/read-only properties 'LockedDate', 'PwdSetDate'/);
  });

  it('surveys (ingest): State changes alone, BasicProperties is accepted, SurveyId must match the URL', async () => {
    await created('/cati/surveys', { SurveyId: 'p7001', SurveyName: 'Patch survey', SampleSize: 10, State: 'Open' });
    const r = await t.json('PATCH', "/cati/surveys('p7001')", { body: { State: 'Closed', BasicProperties: { CallGroups: true } } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ SurveyId: 'p7001', SurveyName: 'Patch survey', SampleSize: 10, State: 'Closed' });
    expect((await t.json('PATCH', "/cati/surveys('p7001')", { body: { SurveyId: 'p7002' } })).status).toBe(400);
  });

  it('a set without PUT has no PATCH either (405 with Allow)', async () => {
    const r = await t.json('PATCH', '/cati/interviewers(1)', { body: {} });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('/{set}/$count', () => {
  it('answers the number as text/plain and honours $filter', async () => {
    for (const n of ['111', '222', '333']) await created('/cati/blacklist', { TelephoneNumber: `9${n}`, Comment: 'count' });
    const all = await t.request('GET', "/cati/blacklist/$count?$filter=Comment eq 'count'");
    expect(all.status).toBe(200);
    expect(all.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(all.headers.get('odata-version')).toBe('4.0');
    expect(await all.text()).toBe('3');
    expect(await (await t.request('GET', "/cati/blacklist/$count?$filter=TelephoneNumber eq '9222'")).text()).toBe('1');
  });

  it('works on computed collections (a group\'s interviewers) and refuses what does not apply', async () => {
    expect(await (await t.request('GET', '/cati/groups(1)/Controller.GetInterviewers(callCenterId=1)/$count')).text()).toMatch(/^\d+$/);
    expect((await t.json('GET', '/cati/blacklist/$count?$top=1')).status).toBe(400);
    expect((await t.json('GET', '/cati/blacklist(1)/$count')).status).toBe(400);
    expect((await t.json('GET', '/cati/interviewerproperties/$count')).status).toBe(404);
    expect((await t.json('GET', '/cati/blacklist/$count', { headers: { accept: 'application/json' } })).status).toBe(406);
    expect((await t.json('POST', '/cati/blacklist/$count', { body: {} })).status).toBe(405);
  });
});

describe('formats: odata.metadata levels, IEEE754Compatible, 406, OData-Version once', () => {
  const call = { Time: '2026-11-02T09:15:00Z', SurveyId: 'p7100', TelephoneNumber: '1', Duration: 5, WaitingTime: 1, CallCenterId: 1 };
  beforeAll(async () => {
    await created('/cati/surveys', { SurveyId: 'p7100', SurveyName: 'Formats' });
    await created('/cati/interviewerproperties', { Name: 'formats.reader' });
    await created('/cati/blacklist', { TelephoneNumber: '0707070707' });
    expect((await t.json('POST', '/cati/callhistory', { body: call })).status).toBe(201);
  });

  it('minimal is the default; none drops every control information but nextLink and count', async () => {
    const min = await t.json('GET', '/cati/blacklist?$top=1');
    expect(min.headers.get('content-type')).toBe('application/json; odata.metadata=minimal; charset=utf-8');
    expect(min.body['@odata.context']).toMatch(/\/cati\/\$metadata#blacklist$/);
    const none = await t.json('GET', '/cati/blacklist?$count=true', { headers: { accept: 'application/json;odata.metadata=none' } });
    expect(none.headers.get('content-type')).toMatch(/odata.metadata=none/);
    expect(Object.keys(none.body)).toEqual(['@odata.count', 'value']);
    expect(JSON.stringify(none.body.value)).not.toContain('@odata');
    const one = await t.json('GET', `/cati/blacklist(${none.body.value[0].Id})?$format=application/json;odata.metadata=none`);
    expect(Object.keys(one.body).some((k) => k.startsWith('@'))).toBe(false);
    expect(one.headers.get('etag')).toMatch(/^W\//); // the header stays
    const doc = await t.json('GET', '/cati/', { headers: { accept: 'application/json;odata.metadata=none' } });
    expect(doc.body).not.toHaveProperty('@odata.context');
  });

  it('full adds @odata.type, @odata.id, @odata.editLink (writable sets only) and the types JSON does not tell', async () => {
    const full = await t.json('GET', '/cati/blacklist?$top=1', { headers: { accept: 'application/json;odata.metadata=full' } });
    const e = full.body.value[0];
    expect(e).toMatchObject({
      '@odata.type': '#Controller.TelephoneBlacklistItem',
      '@odata.id': `${t.url}/cati/blacklist(${e.Id})`,
      '@odata.editLink': `blacklist(${e.Id})`,
      'Type@odata.type': '#Controller.BlacklistType',
      'Created@odata.type': '#DateTimeOffset',
    });
    const history = await t.json('GET', '/cati/callhistory?$top=1&$format=json;odata.metadata=full');
    const h = history.body.value[0];
    expect(h['@odata.id']).toBe(`${t.url}/cati/callhistory(${h.Id})`);
    expect(h['Id@odata.type']).toBe('#Int64');
    const readOnly = await t.json('GET', '/cati/interviewers?$top=1', { headers: { accept: 'application/json;odata.metadata=full' } });
    expect(readOnly.body.value[0]['@odata.id']).toMatch(/\/cati\/interviewers\(\d+\)$/);
    expect(readOnly.body.value[0]).not.toHaveProperty('@odata.editLink'); // edited through /interviewerproperties
    const unaddressable = await t.json('GET', '/cati/callhistorywithvariables?startTime=2026-11-01T00:00:00Z&$format=application/json;odata.metadata=full');
    expect(unaddressable.body.value[0]['@odata.type']).toBe('#Controller.CallHistoryWithVariables');
    expect(unaddressable.body.value[0]).not.toHaveProperty('@odata.id'); // no GET by key
  });

  it('IEEE754Compatible=true writes Int64 values and @odata.count as strings and is echoed in Content-Type', async () => {
    const r = await t.json('GET', '/cati/callhistory?$count=true', { headers: { accept: 'application/json;IEEE754Compatible=true' } });
    expect(r.headers.get('content-type')).toBe('application/json; odata.metadata=minimal; IEEE754Compatible=true; charset=utf-8');
    expect(typeof r.body['@odata.count']).toBe('string');
    expect(typeof r.body.value[0].Id).toBe('string');
    expect(typeof r.body.value[0].Duration).toBe('number'); // Int32 stays a number
    const plain = await t.json('GET', '/cati/callhistory?$count=true');
    expect(typeof plain.body.value[0].Id).toBe('number');
  });

  it.each([
    ['accept', 'application/json;odata.metadata=verbose'],
    ['accept', 'application/json;foo=bar'],
    ['accept', 'application/atom+xml'],
    ['accept', 'application/json;IEEE754Compatible=maybe'],
    ['$format', 'atom'],
    ['$format', 'application/json;odata.metadata=everything'],
    ['$format', 'tsv'], // csv and xlsx are exports now (odata-export.test.ts)
  ])('an unsupported format (%s: %s) → 406 with an OData error', async (where, value) => {
    const r =
      where === 'accept'
        ? await t.json('GET', '/cati/blacklist', { headers: { accept: value } })
        : await t.json('GET', `/cati/blacklist?$format=${encodeURIComponent(value)}`);
    expect(r.status).toBe(406);
    expect(r.body.error.code).toBe('NotAcceptable');
    expect(r.headers.get('odata-version')).toBe('4.0');
  });

  it('an Accept list falls back to the first acceptable range (Power Query order)', async () => {
    const accept = 'application/json;odata=minimalmetadata;q=1.0,application/json;odata.metadata=none;q=0.9,*/*;q=0.1';
    const r = await t.json('GET', '/cati/blacklist?$top=1', { headers: { accept } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/odata.metadata=none/);
  });

  it('$metadata is XML and refuses JSON formats with 406', async () => {
    expect((await t.request('GET', '/cati/$metadata', { headers: { accept: 'application/xml' } })).status).toBe(200);
    expect((await t.request('GET', '/cati/$metadata', { headers: { accept: '*/*' } })).status).toBe(200);
    expect((await t.request('GET', '/cati/$metadata?$format=json')).status).toBe(406);
  });

  it.each([
    ['GET', '/cati/blacklist'],
    ['GET', '/cati/$metadata'],
    ['GET', '/cati/blacklist/$count'],
    ['GET', '/cati/nothing'],
    ['GET', '/cati/blacklist?$top=x'],
    ['DELETE', '/cati/blacklist'],
  ])('%s %s carries OData-Version: 4.0 exactly once', async (method, path) => {
    const res = await t.request(method, path);
    expect(res.headers.get('odata-version')).toBe('4.0'); // a repeated header would read "4.0, 4.0"
    await res.arrayBuffer();
  });

  it('a 401 under /cati/ carries OData-Version once too', async () => {
    const res = await t.request('GET', '/cati/blacklist', { key: null });
    expect(res.status).toBe(401);
    expect(res.headers.get('odata-version')).toBe('4.0');
  });
});
