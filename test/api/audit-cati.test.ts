import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audited } from '../helpers/audit.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// Every CATI change a person or client makes, performed over HTTP, leaves one audit row (docs/audit.md#audit)
// naming the stored key that made it; the rows are read back through GET /admin/audit.
let t: TestServer;
let key: string;
let keyId: number;

beforeAll(async () => {
  t = await startTestServer();
  const created = await t.server.ctx.keys.create('supervisor anna', ['cati_administrate', 'cati_integrate', 'company_administrate']);
  [key, keyId] = [created.key, created.info.id];
  const survey = { SurveyId: 'p500', SurveyName: 'Audit survey', SampleSize: 10, State: 'Open' };
  expect((await t.json('POST', '/cati/surveys', { body: survey, key })).status).toBe(201);
  // A break type exists once ingest first names it (history ingest itself is not audited).
  const anna = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'anna' }, key })).body.InterviewerId;
  const brk = { Time: new Date(Date.now() - 60_000).toISOString(), InterviewerId: anna, BreakTypeId: 5, BreakTypeName: 'Smoke', Duration: 60 };
  expect((await t.json('POST', '/cati/breakhistory', { body: brk, key })).status).toBe(201);
});
afterAll(() => t.close());

const as = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => t.json(method, path, { body, key, headers });
const by = { ActorKeyId: expect.any(Number), Actor: 'supervisor anna' };

describe('audit of CATI changes', () => {
  it('blacklist: create, update, delete each one row with the values; an import one row with its counts', async () => {
    const { result: item, rows: created } = await audited(t, async () => (await as('POST', '/cati/blacklist', { TelephoneNumber: '0201234567', Comment: 'asked' })).body);
    expect(created).toEqual([
      expect.objectContaining({ ...by, ActorKeyId: keyId, Action: 'created', Entity: 'blacklist', EntityId: String(item.Id), Changes: { TelephoneNumber: '0201234567', Type: 'Equal', Comment: 'asked' } }),
    ]);
    const { rows: updated } = await audited(t, () => as('PATCH', `/cati/blacklist(${item.Id})`, { Comment: 'asked twice' }));
    expect(updated).toEqual([expect.objectContaining({ Action: 'updated', EntityId: String(item.Id), Changes: { Comment: ['asked', 'asked twice'] } })]);
    const { rows: deleted } = await audited(t, () => as('DELETE', `/cati/blacklist(${item.Id})`));
    expect(deleted).toEqual([
      expect.objectContaining({ Action: 'deleted', Entity: 'blacklist', Changes: { TelephoneNumber: '0201234567', Type: 'Equal', Comment: 'asked twice' } }),
    ]);
    const { rows: imported } = await audited(t, () => as('POST', '/cati/blacklist/Controller.Import', { BlackListItems: ['111', '111', 'abc', '222'] }));
    expect(imported).toEqual([expect.objectContaining({ ...by, Action: 'imported', Entity: 'blacklist', EntityId: null, Changes: { Added: 2, Duplicates: 1, Invalid: 1 } })]);
  });

  it('groups: create, update, delete', async () => {
    const { result: g, rows: created } = await audited(t, async () => (await as('POST', '/cati/groups', { Name: 'Evening', Description: 'late' })).body);
    expect(created).toEqual([expect.objectContaining({ ...by, Action: 'created', Entity: 'groups', EntityId: String(g.GroupId), Changes: { Name: 'Evening', Description: 'late', ParentGroups: [] } })]);
    const { rows: updated } = await audited(t, () => as('PATCH', `/cati/groups(${g.GroupId})`, { Name: 'Night' }));
    expect(updated.map((r) => [r.Action, r.Changes])).toEqual([['updated', { Name: ['Evening', 'Night'] }]]);
    const { rows: deleted } = await audited(t, () => as('DELETE', `/cati/groups(${g.GroupId})`));
    expect(deleted.map((r) => [r.Action, r.Entity, r.Changes])).toEqual([['deleted', 'groups', { Name: 'Night', Description: 'late', ParentGroups: [], Members: [] }]]);
  });

  it('interviewers: create, update, lock, unlock, delete; a password is never recorded', async () => {
    const { result: i, rows: created } = await audited(t, async () => (await as('POST', '/cati/interviewerproperties', { Name: 'jan', Password: 'Secret-77', Location: 'Desk 1' })).body);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ ...by, Action: 'created', Entity: 'interviewers', EntityId: String(i.InterviewerId) });
    expect(created[0]!.Changes).toMatchObject({ Name: 'jan', Location: 'Desk 1', IsLocked: false, ParentGroups: [1], Password: '(set)' });
    const id = i.InterviewerId as number;
    const { rows: pwd } = await audited(t, () => as('PATCH', `/cati/interviewerproperties(${id})`, { Password: 'Other-88', DisplayName: 'Jan' }));
    expect(pwd.map((r) => [r.Action, r.Changes])).toEqual([['updated', { DisplayName: [null, 'Jan'], Password: [null, '(changed)'] }]]);
    const { rows: locked } = await audited(t, () => as('GET', `/cati/interviewers(${id})/Controller.Lock()`));
    expect(locked.map((r) => [r.Action, r.EntityId, r.Changes])).toEqual([['locked', String(id), { IsLocked: [false, true] }]]);
    const { rows: again } = await audited(t, () => as('GET', `/cati/interviewers(${id})/Controller.Lock()`));
    expect(again).toEqual([]); // already locked: nothing changed, nothing recorded
    const { rows: unlocked } = await audited(t, () => as('GET', `/cati/interviewers(${id})/Controller.Unlock()`));
    expect(unlocked.map((r) => [r.Action, r.Changes])).toEqual([['unlocked', { IsLocked: [true, false] }]]);
    const { rows: deleted } = await audited(t, () => as('DELETE', `/cati/interviewerproperties(${id})`));
    expect(deleted).toEqual([expect.objectContaining({ Action: 'deleted', Entity: 'interviewers', EntityId: String(id) })]);
    expect(deleted[0]!.Changes).toMatchObject({ Name: 'jan', DisplayName: 'Jan', ParentGroups: [1] });
    const all = JSON.stringify([created, pwd, deleted]);
    expect(all).not.toContain('Secret-77');
    expect(all).not.toContain('Other-88');
  });

  it('assignments: every Assign*, DeAssign* and CleanAssignments of interviewers and groups', async () => {
    const i = (await as('POST', '/cati/interviewerproperties', { Name: 'assignee' })).body.InterviewerId as number;
    const g = (await as('POST', '/cati/groups', { Name: 'Assigned group' })).body.GroupId as number;
    const calls: [string, string][] = [
      [`/cati/interviewers(${i})/Controller.AssignOnSurvey(surveyId='p500')`, 'AssignOnSurvey'],
      [`/cati/interviewers(${i})/Controller.AssignOnCall(surveyId='p500',interviewId=7)`, 'AssignOnCall'],
      [`/cati/interviewers(${i})/Controller.DeAssignFromCalls(surveyId='p500')`, 'DeAssignFromCalls'],
      [`/cati/interviewers(${i})/Controller.DeAssignFromSurvey(surveyId='p500')`, 'DeAssignFromSurvey'],
      [`/cati/interviewers(${i})/Controller.AssignOnSurvey(surveyId='p500')`, 'AssignOnSurvey'],
      [`/cati/interviewers(${i})/Controller.CleanAssignments()`, 'CleanAssignments'],
      [`/cati/groups(${g})/Controller.AssignOnSurvey(surveyId='p500',callCenterId=1)`, 'AssignOnSurvey'],
      [`/cati/groups(${g})/Controller.AssignOnCall(surveyId='p500',interviewId=9,callCenterId=1)`, 'AssignOnCall'],
      [`/cati/groups(${g})/Controller.DeAssignFromCalls(surveyId='p500',callCenterId=1)`, 'DeAssignFromCalls'],
      [`/cati/groups(${g})/Controller.DeAssignFromSurvey(surveyId='p500',callCenterId=1)`, 'DeAssignFromSurvey'],
    ];
    const { rows } = await audited(t, async () => {
      for (const [path] of calls) expect((await as('GET', path)).status, path).toBe(200);
    });
    expect(rows.map((r) => [r.Entity, r.Action])).toEqual(calls.map(([, action]) => ['assignments', action]));
    expect(rows.every((r) => r.Actor === 'supervisor anna')).toBe(true);
    expect(rows.map((r) => [r.EntityId, r.Changes])).toEqual([
      [`interviewers(${i})`, { SurveyId: 'p500' }],
      [`interviewers(${i})`, { SurveyId: 'p500', InterviewId: 7 }],
      [`interviewers(${i})`, { SurveyId: 'p500', InterviewIds: [7] }],
      [`interviewers(${i})`, { SurveyId: 'p500' }],
      [`interviewers(${i})`, { SurveyId: 'p500' }],
      [`interviewers(${i})`, { Removed: [{ SurveyId: 'p500', InterviewId: null }] }],
      [`groups(${g})`, { SurveyId: 'p500', CallCenterId: 1 }],
      [`groups(${g})`, { SurveyId: 'p500', InterviewId: 9, CallCenterId: 1 }],
      [`groups(${g})`, { SurveyId: 'p500', CallCenterId: 1, InterviewIds: [9] }],
      [`groups(${g})`, { SurveyId: 'p500', CallCenterId: 1 }],
    ]);
  });

  it('break types, extended statuses and call centres', async () => {
    const { rows } = await audited(t, async () => {
      await as('PATCH', '/cati/breaktypes(5)', { MaxMinutes: 12 });
      await as('POST', '/cati/extendedstatuses', { Code: 77, Name: 'Moved away', Category: 'Ineligible' });
      await as('DELETE', '/cati/extendedstatuses(77)');
      const cc = (await as('POST', '/cati/callcenters', { Name: 'Audit site', TimeZone: 'Europe/Berlin' })).body.CallCenterId as number;
      await as('PATCH', `/cati/callcenters(${cc})`, { Name: 'Audit site 2' });
    });
    expect(rows.map((r) => [r.Entity, r.Action, r.Changes])).toEqual([
      ['breaktypes', 'updated', { MaxMinutes: [null, 12] }],
      ['extendedstatuses', 'created', { Code: 77, Name: 'Moved away', Category: 'Ineligible' }],
      ['extendedstatuses', 'deleted', { Code: 77, Name: 'Moved away', Category: 'Ineligible' }],
      ['callcenters', 'created', { Name: 'Audit site', TimeZone: 'Europe/Berlin' }],
      ['callcenters', 'updated', { Name: ['Audit site', 'Audit site 2'] }],
    ]);
  });

  it('a refused change writes no audit row: 409 duplicate, 400 body, 412 stale If-Match, 404', async () => {
    await as('POST', '/cati/blacklist', { TelephoneNumber: '0301234567' });
    const { rows } = await audited(t, async () => {
      expect((await as('POST', '/cati/blacklist', { TelephoneNumber: '0301234567' })).status).toBe(409);
      expect((await as('POST', '/cati/blacklist/Controller.Import', { BlackListItems: 'nope' })).status).toBe(400);
      expect((await as('POST', '/cati/groups', { Name: 'CATI Interviewers' })).status).toBe(409);
      expect((await as('PATCH', '/cati/breaktypes(5)', { MaxMinutes: 1 }, { 'if-match': 'W/"99"' })).status).toBe(412);
      expect((await as('GET', "/cati/interviewers(999999)/Controller.AssignOnSurvey(surveyId='p500')")).status).toBe(404);
      expect((await as('POST', '/cati/interviewerproperties', { Name: 'x', Bogus: 1 })).status).toBe(400);
    });
    expect(rows).toEqual([]);
  });
});
