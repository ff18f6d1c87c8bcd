import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let adminKey: string;
let integrateKey: string;

const survey = (id: string, extra: Record<string, unknown> = {}) => ({
  SurveyId: id, SurveyName: `Survey ${id}`, SampleSize: 100, State: 'Open',
  BasicProperties: { ExtendedStatusGroup: 'Default', Scheduling: 'Standard', CallDeliveryMode: 'Random', CallGroups: true },
  Variables: [{ Name: 'Region', AvailableAsCatiFilter: true }, { Name: 'Secret', AvailableAsCatiFilter: false }],
  ...extra,
});

beforeAll(async () => {
  t = await startTestServer();
  adminKey = (await t.server.ctx.keys.create('admin', ['cati_administrate'])).key;
  integrateKey = (await t.server.ctx.keys.create('dialer', ['cati_integrate'])).key;
  for (const id of ['p100', 'p200', 'p300']) expect((await t.json('POST', '/cati/surveys', { body: survey(id), key: integrateKey })).status).toBe(201);
});
afterAll(() => t.close());

describe('permissions', () => {
  it('a cati_integrate key cannot administrate (403) and a cati_administrate key cannot ingest (403)', async () => {
    expect((await t.json('GET', '/cati/groups', { key: integrateKey })).status).toBe(403);
    expect((await t.json('POST', '/cati/groups', { body: { Name: 'x' }, key: integrateKey })).status).toBe(403);
    expect((await t.json('GET', '/cati/interviewers(1)/Controller.Lock()', { key: integrateKey })).status).toBe(403);
    expect((await t.json('POST', '/cati/surveys', { body: survey('p999'), key: adminKey })).status).toBe(403);
    expect((await t.json('PUT', "/cati/surveys('p100')", { body: { SampleSize: 5 }, key: adminKey })).status).toBe(403);
    expect((await t.json('GET', '/cati/surveys', { key: adminKey })).status).toBe(200);
  });

  it('no key → 401 with WWW-Authenticate', async () => {
    const r = await t.json('GET', '/cati/interviewers', { key: null });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer');
  });
});

describe('call centres', () => {
  it('lists the default call centre 1 "Main" and creates another (duplicate name → 409)', async () => {
    const list = await t.json('GET', '/cati/callcenters');
    expect(list.body.value[0]).toMatchObject({ CallCenterId: 1, Name: 'Main' });
    const r = await t.json('POST', '/cati/callcenters', { body: { Name: 'Second site' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ CallCenterId: expect.any(Number), Name: 'Second site' });
    expect(r.body.CallCenterId).toBeGreaterThan(1);
    expect((await t.json('POST', '/cati/callcenters', { body: { Name: 'Second site' } })).status).toBe(409);
  });
});

describe('groups', () => {
  it('POST creates (201 + Location), GET by key answers it with an ETag, a duplicate Name is 409 with ExistingId', async () => {
    const r = await t.json('POST', '/cati/groups', { body: { Name: 'Evening', Description: 'After 17:00' } });
    expect(r.status).toBe(201);
    expect(r.headers.get('location')).toMatch(new RegExp(`/cati/groups\\(${r.body.GroupId}\\)$`));
    expect(r.body).toMatchObject({ Name: 'Evening', Description: 'After 17:00', ParentGroups: [] });
    const got = await t.json('GET', `/cati/groups(${r.body.GroupId})`);
    expect(got.headers.get('etag')).toBe('W/"1"');
    const dup = await t.json('POST', '/cati/groups', { body: { Name: 'Evening' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.details[0]).toEqual({ code: 'ExistingId', target: 'Id', message: String(r.body.GroupId) });
  });

  it('nests groups and rejects cycles and unknown parents with 400', async () => {
    const a = (await t.json('POST', '/cati/groups', { body: { Name: 'A' } })).body.GroupId;
    const b = (await t.json('POST', '/cati/groups', { body: { Name: 'B', ParentGroups: [a] } })).body.GroupId;
    const cyc = await t.json('PUT', `/cati/groups(${a})`, { body: { ParentGroups: [b] } });
    expect(cyc.status).toBe(400);
    expect(cyc.body.error.message).toMatch(/cycle/);
    const unknown = await t.json('POST', '/cati/groups', { body: { Name: 'C', ParentGroups: [4242] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/4242/);
  });

  it('PUT keeps fields left out and honours If-Match (stale → 412); DELETE with a stale ETag → 412, current → 204, then 404', async () => {
    const g = (await t.json('POST', '/cati/groups', { body: { Name: 'ToEdit', Description: 'd', ParentGroups: [1] } })).body;
    const put = await t.json('PUT', `/cati/groups(${g.GroupId})`, { body: { Name: 'Edited' }, headers: { 'if-match': 'W/"1"' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ Name: 'Edited', Description: 'd', ParentGroups: [1], '@odata.etag': 'W/"2"' });
    expect((await t.json('PUT', `/cati/groups(${g.GroupId})`, { body: { Name: 'x' }, headers: { 'if-match': 'W/"1"' } })).status).toBe(412);
    expect((await t.json('PUT', `/cati/groups(${g.GroupId})`, { body: { GroupId: 999, Name: 'x' } })).status).toBe(400);
    expect((await t.request('DELETE', `/cati/groups(${g.GroupId})`, { headers: { 'if-match': 'W/"1"' } })).status).toBe(412);
    expect((await t.request('DELETE', `/cati/groups(${g.GroupId})`, { headers: { 'if-match': 'W/"2"' } })).status).toBe(204);
    expect((await t.json('GET', `/cati/groups(${g.GroupId})`)).status).toBe(404);
  });

  it('keys of the wrong type or out of int32 range are 400; a well-formed unknown key is 404', async () => {
    expect((await t.json('GET', "/cati/groups('x')")).status).toBe(400);
    expect((await t.json('GET', '/cati/groups(2147483648)')).status).toBe(400);
    expect((await t.json('GET', '/cati/groups(77777)')).status).toBe(404);
    expect((await t.json('GET', '/cati/groups(77777)/Controller.GetAssignments(callCenterId=1)')).status).toBe(404);
  });

  it('$filter, $orderby, $top and $count apply to /groups', async () => {
    for (const Name of ['Zulu filter', 'Alpha filter', 'Other']) await t.json('POST', '/cati/groups', { body: { Name } });
    const r = await t.json('GET', "/cati/groups?$filter=endswith(Name,' filter')&$orderby=Name desc&$count=true");
    expect(r.status).toBe(200);
    expect(r.body.value.map((g: { Name: string }) => g.Name)).toEqual(['Zulu filter', 'Alpha filter']);
    expect(r.body['@odata.count']).toBe(r.body.value.length);
  });
});

describe('interviewers', () => {
  let groupId: number;
  beforeAll(async () => {
    groupId = (await t.json('POST', '/cati/groups', { body: { Name: 'Team X' } })).body.GroupId;
  });

  it('POST /interviewerproperties creates (201), never returns the password, sets PwdSetDate; GET /interviewers reads it', async () => {
    const r = await t.json('POST', '/cati/interviewerproperties', {
      body: { InterviewerId: 0, Name: 'jdoe', DisplayName: 'Jane Doe', Password: 's3cret!', DialType: 'Automatic', ParentGroups: [groupId] },
    });
    expect(r.status).toBe(201);
    expect(r.body).not.toHaveProperty('Password');
    expect(JSON.stringify(r.body)).not.toContain('s3cret');
    expect(r.body).toMatchObject({ Name: 'jdoe', DisplayName: 'Jane Doe', DialType: 'Automatic', AssignmentsListMode: 'AllCalls', IsLocked: false, LockedDate: null });
    expect(Date.parse(r.body.PwdSetDate)).toBeGreaterThan(Date.now() - 60_000);
    const got = await t.json('GET', `/cati/interviewers(${r.body.InterviewerId})`);
    expect(got.body).toMatchObject({ Name: 'jdoe' });
    const groups = await t.json('GET', `/cati/interviewers(${r.body.InterviewerId})/Controller.GetGroups()`);
    expect(groups.body.value.map((g: { GroupId: number }) => g.GroupId)).toEqual([groupId]);
  });

  it('an interviewer without ParentGroups lands in the root group "CATI Interviewers"', async () => {
    const id = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'rooty' } })).body.InterviewerId;
    const groups = await t.json('GET', `/cati/interviewers(${id})/Controller.GetGroups()`);
    expect(groups.body.value.map((g: { Name: string }) => g.Name)).toEqual(['CATI Interviewers']);
  });

  it('PUT keeps fields left out; the key must match a body id; a duplicate Name is 409; bad enums are 400', async () => {
    const id = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'keepme', Location: 'Booth 1', Password: 'pw' } })).body.InterviewerId;
    const before = (await t.json('GET', `/cati/interviewers(${id})`)).body;
    const put = await t.json('PUT', `/cati/interviewerproperties(${id})`, { body: { InterviewerId: id, Description: 'night' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ Location: 'Booth 1', Description: 'night', PwdSetDate: before.PwdSetDate });
    expect((await t.json('PUT', `/cati/interviewerproperties(${id})`, { body: { InterviewerId: id + 1 } })).status).toBe(400);
    await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'taken' } });
    expect((await t.json('PUT', `/cati/interviewerproperties(${id})`, { body: { Name: 'taken' } })).status).toBe(409);
    const bad = await t.json('PUT', `/cati/interviewerproperties(${id})`, { body: { DialType: 'Robot' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/DialType/);
    expect((await t.json('PUT', '/cati/interviewerproperties(99999)', { body: { Description: 'x' } })).status).toBe(404);
    expect((await t.json('POST', '/cati/interviewerproperties', { body: { InterviewerId: 5, Name: 'n5' } })).status).toBe(400);
  });

  it('Lock sets IsLocked and keeps the first LockedDate; Unlock clears both; both are idempotent', async () => {
    const id = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'locky' } })).body.InterviewerId;
    const lock = await t.json('GET', `/cati/interviewers(${id})/Controller.Lock()`);
    expect(lock.status).toBe(200);
    expect(lock.body).toEqual({ '@odata.context': `${t.url}/cati/$metadata#Edm.Boolean`, value: true });
    const first = (await t.json('GET', `/cati/interviewers(${id})`)).body;
    expect(first.IsLocked).toBe(true);
    // A distinct, known LockedDate (no waiting for the clock to move): a second Lock must keep it.
    await t.server.ctx.store.run('UPDATE interviewers SET locked_date = ? WHERE id = ?', [Date.UTC(2020, 0, 1), id]);
    await t.json('GET', `/cati/interviewers(${id})/Controller.Lock()`);
    expect((await t.json('GET', `/cati/interviewers(${id})`)).body.LockedDate).toBe('2020-01-01T00:00:00.000Z');
    await t.json('GET', `/cati/interviewers(${id})/Controller.Unlock()`);
    expect((await t.json('GET', `/cati/interviewers(${id})/Controller.Unlock()`)).status).toBe(200);
    expect((await t.json('GET', `/cati/interviewers(${id})`)).body).toMatchObject({ IsLocked: false, LockedDate: null });
    expect((await t.json('GET', '/cati/interviewers(99999)/Controller.Lock()')).status).toBe(404);
    expect((await t.request('HEAD', `/cati/interviewers(${id})/Controller.Lock()`)).status).toBe(405);
  });

  it('DELETE removes the interviewer (stale If-Match → 412), never the group', async () => {
    const id = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'gone', ParentGroups: [groupId] } })).body.InterviewerId;
    expect((await t.request('DELETE', `/cati/interviewerproperties(${id})`, { headers: { 'if-match': 'W/"9"' } })).status).toBe(412);
    expect((await t.request('DELETE', `/cati/interviewerproperties(${id})`, { headers: { 'if-match': '*' } })).status).toBe(204);
    expect((await t.json('GET', `/cati/interviewers(${id})`)).status).toBe(404);
    expect((await t.json('GET', `/cati/groups(${groupId})`)).status).toBe(200);
  });

  it('ids of deleted interviewers and groups are never reused: history keeps pointing at nobody', async () => {
    const gone = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'newest-then-gone' } })).body.InterviewerId as number;
    const call = { Time: '2026-11-09T09:00:00Z', SurveyId: 'p100', InterviewerId: gone, TelephoneNumber: '31201234567', Duration: 60, WaitingTime: 3 };
    expect((await t.json('POST', '/cati/callhistory', { body: call, key: integrateKey })).status).toBe(201);
    expect((await t.request('DELETE', `/cati/interviewerproperties(${gone})`)).status).toBe(204);
    const next = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'successor' } })).body.InterviewerId as number;
    expect(next).toBeGreaterThan(gone);
    const history = await t.json('GET', '/cati/callhistorywithvariables?startTime=2026-11-09T00:00:00Z&endTime=2026-11-10T00:00:00Z');
    expect(history.body.value).toEqual([expect.objectContaining({ InterviewerId: gone, InterviewerName: null })]);

    const g = (await t.json('POST', '/cati/groups', { body: { Name: 'newest group' } })).body.GroupId as number;
    expect((await t.request('DELETE', `/cati/groups(${g})`)).status).toBe(204);
    expect((await t.json('POST', '/cati/groups', { body: { Name: 'next group' } })).body.GroupId).toBeGreaterThan(g);
  });
});

describe('assignments', () => {
  let g: number;
  let i: number;
  beforeAll(async () => {
    g = (await t.json('POST', '/cati/groups', { body: { Name: 'Assign team' } })).body.GroupId;
    i = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'assignee', ParentGroups: [g] } })).body.InterviewerId;
  });
  const ok = async (path: string) => {
    const r = await t.json('GET', path);
    expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(200);
    expect(r.body.value).toBe(true);
  };

  it('explicit and group assignments give one row per (SurveyId, AssignmentType); DeAssignFromSurvey on the interviewer removes only the explicit one', async () => {
    await ok(`/cati/interviewers(${i})/Controller.AssignOnSurvey(surveyId='p100')`);
    await ok(`/cati/interviewers(${i})/Controller.AssignOnSurvey(surveyId='p100')`);
    await ok(`/cati/groups(${g})/Controller.AssignOnSurvey(surveyId='p100',callCenterId=1)`);
    const rows = await t.json('GET', `/cati/interviewers(${i})/Controller.GetAssignments()`);
    expect(rows.body.value).toEqual([
      { SurveyId: 'p100', AssignmentType: 'Explicit', AssignedCallsCount: 0 },
      { SurveyId: 'p100', AssignmentType: 'Implicit', AssignedCallsCount: 0 },
    ]);
    await ok(`/cati/interviewers(${i})/Controller.DeAssignFromSurvey(surveyId='p100')`);
    expect((await t.json('GET', `/cati/interviewers(${i})/Controller.GetAssignments()`)).body.value).toEqual([
      { SurveyId: 'p100', AssignmentType: 'Implicit', AssignedCallsCount: 0 },
    ]);
    expect((await t.json('GET', `/cati/groups(${g})/Controller.GetAssignments(callCenterId=1)`)).body.value).toEqual([
      { SurveyId: 'p100', AssignmentType: 'Explicit', AssignedCallsCount: 0 },
    ]);
    await ok(`/cati/groups(${g})/Controller.DeAssignFromSurvey(surveyId='p100',callCenterId=1)`);
    expect((await t.json('GET', `/cati/interviewers(${i})/Controller.GetAssignments()`)).body.value).toEqual([]);
  });

  it('AssignOnCall makes ImplicitToSurveyCalls appear with a computed AssignedCallsCount; DeAssignFromCalls and CleanAssignments remove them', async () => {
    await ok(`/cati/interviewers(${i})/Controller.AssignOnCall(surveyId='p200',interviewId=7)`);
    await ok(`/cati/interviewers(${i})/Controller.AssignOnCall(surveyId='p200',interviewId=8)`);
    await ok(`/cati/groups(${g})/Controller.AssignOnCall(surveyId='p200',interviewId=9,callCenterId=1)`);
    expect((await t.json('GET', `/cati/interviewers(${i})/Controller.GetAssignments()`)).body.value).toEqual([
      { SurveyId: 'p200', AssignmentType: 'ImplicitToSurveyCalls', AssignedCallsCount: 3 },
    ]);
    const res = await t.json('GET', "/cati/surveys('p200')/Controller.GetAssignments(callCenterId=1)");
    expect(res.body.value).toEqual([
      { ResourceId: i, Name: 'assignee', IsGroup: false, AssignedCallsCount: 2 },
      { ResourceId: g, Name: 'Assign team', IsGroup: true, AssignedCallsCount: 1 },
    ]);
    const groupsOnly = await t.json('GET', "/cati/surveys('p200')/Controller.GetAssignments(callCenterId=1)?$filter=IsGroup eq true&$count=true");
    expect(groupsOnly.body['@odata.count']).toBe(1);
    expect(groupsOnly.body.value.map((r: { ResourceId: number }) => r.ResourceId)).toEqual([g]);
    const busy = await t.json('GET', `/cati/interviewers(${i})/Controller.GetAssignments()?$filter=AssignedCallsCount gt 2&$select=SurveyId`);
    expect(busy.body.value).toEqual([{ SurveyId: 'p200' }]);
    expect((await t.json('GET', `/cati/interviewers(${i})/Controller.GetAssignments()?$filter=Nope eq 1`)).status).toBe(400);
    await ok(`/cati/groups(${g})/Controller.DeAssignFromCalls(surveyId='p200',callCenterId=1)`);
    await ok(`/cati/interviewers(${i})/Controller.DeAssignFromCalls(surveyId='p200')`);
    expect((await t.json('GET', `/cati/interviewers(${i})/Controller.GetAssignments()`)).body.value).toEqual([]);
    await ok(`/cati/interviewers(${i})/Controller.AssignOnSurvey(surveyId='p300')`);
    await ok(`/cati/interviewers(${i})/Controller.AssignOnCall(surveyId='p300',interviewId=1)`);
    await ok(`/cati/interviewers(${i})/Controller.CleanAssignments()`);
    expect((await t.json('GET', `/cati/interviewers(${i})/Controller.GetAssignments()`)).body.value).toEqual([]);
  });

  it('GetInterviewers lists the group members of that call centre; an unknown call centre is 404', async () => {
    const r = await t.json('GET', `/cati/groups(${g})/Controller.GetInterviewers(callCenterId=1)`);
    expect(r.body.value.map((x: { InterviewerId: number }) => x.InterviewerId)).toEqual([i]);
    const other = (await t.json('POST', '/cati/callcenters', { body: { Name: 'No members here' } })).body.CallCenterId;
    expect((await t.json('GET', `/cati/groups(${g})/Controller.GetInterviewers(callCenterId=${other})`)).body.value).toEqual([]);
    expect((await t.json('GET', `/cati/groups(${g})/Controller.GetInterviewers(callCenterId=99)`)).status).toBe(404);
    expect((await t.json('GET', `/cati/groups(${g})/Controller.AssignOnSurvey(surveyId='p100',callCenterId=99)`)).status).toBe(404);
  });

  it('unknown surveys, SoftDeleted surveys and bad arguments are refused', async () => {
    expect((await t.json('GET', `/cati/interviewers(${i})/Controller.AssignOnSurvey(surveyId='p404')`)).status).toBe(404);
    expect((await t.json('GET', `/cati/interviewers(${i})/Controller.AssignOnSurvey()`)).status).toBe(400);
    expect((await t.json('GET', `/cati/interviewers(${i})/Controller.AssignOnCall(surveyId='p100',interviewId='x')`)).status).toBe(400);
    expect((await t.json('GET', `/cati/groups(${g})/Controller.AssignOnSurvey(surveyId='p100')`)).status).toBe(400);
    await t.json('POST', '/cati/surveys', { body: survey('p666', { State: 'SoftDeleted' }), key: integrateKey });
    expect((await t.json('GET', `/cati/interviewers(${i})/Controller.AssignOnSurvey(surveyId='p666')`)).status).toBe(404);
    expect((await t.json('GET', "/cati/surveys('p666')")).status).toBe(404);
    expect((await t.json('GET', "/cati/surveys('p666')/Controller.GetBasicProperties()")).status).toBe(404);
  });

  it('deleting a group removes its assignments and memberships but keeps the interviewer', async () => {
    const g2 = (await t.json('POST', '/cati/groups', { body: { Name: 'Short-lived' } })).body.GroupId;
    const j = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'member2', ParentGroups: [g2] } })).body.InterviewerId;
    await ok(`/cati/groups(${g2})/Controller.AssignOnSurvey(surveyId='p100',callCenterId=1)`);
    expect((await t.json('GET', `/cati/interviewers(${j})/Controller.GetAssignments()`)).body.value).toHaveLength(1);
    expect((await t.request('DELETE', `/cati/groups(${g2})`)).status).toBe(204);
    expect((await t.json('GET', `/cati/interviewers(${j})/Controller.GetAssignments()`)).body.value).toEqual([]);
    expect((await t.json('GET', `/cati/interviewers(${j})`)).status).toBe(200);
  });
});

describe('surveys', () => {
  it('GET /surveys lists surveys with their variables; GetBasicProperties answers the ingested properties', async () => {
    const list = await t.json('GET', "/cati/surveys?$filter=SurveyId eq 'p100'");
    expect(list.body.value).toEqual([
      {
        '@odata.etag': 'W/"1"', SurveyId: 'p100', SurveyName: 'Survey p100', SampleSize: 100, State: 'Open',
        Variables: [{ Name: 'Region', AvailableAsCatiFilter: true }, { Name: 'Secret', AvailableAsCatiFilter: false }],
      },
    ]);
    const bp = await t.json('GET', "/cati/surveys('p100')/Controller.GetBasicProperties()");
    expect(bp.body).toMatchObject({ SurveyId: 'p100', ExtendedStatusGroup: 'Default', Scheduling: 'Standard', CallDeliveryMode: 'Random', CallGroups: true });
  });

  it('ingest PUT updates present fields (State Closed, new variables); POST of an existing id is 409; a malformed id is 400', async () => {
    const put = await t.json('PUT', "/cati/surveys('p300')", { body: { State: 'Closed', Variables: [{ Name: 'Age', AvailableAsCatiFilter: true }] }, key: integrateKey });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ SurveyId: 'p300', SurveyName: 'Survey p300', State: 'Closed', Variables: [{ Name: 'Age', AvailableAsCatiFilter: true }] });
    expect((await t.json('POST', '/cati/surveys', { body: survey('p300'), key: integrateKey })).status).toBe(409);
    expect((await t.json('POST', '/cati/surveys', { body: survey('x1'), key: integrateKey })).status).toBe(400);
    expect((await t.json('POST', '/cati/surveys', { body: survey('p301', { State: 'Deleted' }), key: integrateKey })).status).toBe(400);
    expect((await t.json('PUT', "/cati/surveys('p404')", { body: { State: 'Open' }, key: integrateKey })).status).toBe(404);
  });
});
