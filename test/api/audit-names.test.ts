/**
 * The activity log names what changed (docs/audit.md#names): `EntityName` beside `EntityId`, and `ChangeNames`
 * naming the group, interviewer, survey and call-centre ids inside `Changes`; the CSV export carries both.
 */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audited } from '../helpers/audit.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let north: number;
let nights: number;
let anna: number;

beforeAll(async () => {
  t = await startTestServer();
  expect((await t.json('POST', '/cati/surveys', { body: { SurveyId: 'p700', SurveyName: 'Energy panel', SampleSize: 10, State: 'Open' } })).status).toBe(201);
  north = (await t.json('POST', '/cati/groups', { body: { Name: 'North' } })).body.GroupId;
  nights = (await t.json('POST', '/cati/groups', { body: { Name: 'Nights' } })).body.GroupId;
  anna = (await t.json('POST', '/cati/interviewerproperties', { body: { Name: 'anna.v', DisplayName: 'Anna Visser', ParentGroups: [north] } })).body.InterviewerId;
});
afterAll(() => t.close());

describe('GET /admin/audit names what changed', () => {
  it('an interviewer moved between groups: the interviewer by name, and both groups by name', async () => {
    const { rows } = await audited(t, async () => {
      expect((await t.json('PATCH', `/cati/interviewerproperties(${anna})`, { body: { ParentGroups: [north, nights] } })).status).toBeLessThan(300);
    });
    const row = rows.find((r) => r.Entity === 'interviewers')!;
    expect(row.Changes.ParentGroups).toEqual([[north], [north, nights]]);
    expect(row.EntityName).toBe('Anna Visser');
    expect(row.ChangeNames).toEqual({ groups: { [north]: 'North', [nights]: 'Nights' } });
  });

  it('an assignment names its interviewer and its survey', async () => {
    const { rows } = await audited(t, async () => {
      expect((await t.json('GET', `/cati/interviewers(${anna})/Controller.AssignOnSurvey(surveyId='p700')`)).status).toBe(200);
    });
    expect(rows).toEqual([expect.objectContaining({ Entity: 'assignments', EntityId: `interviewers(${anna})`, EntityName: 'Anna Visser', ChangeNames: { surveys: { p700: 'Energy panel' } } })]);
  });

  it('a deleted group keeps its recorded name, and its members are named', async () => {
    const { rows } = await audited(t, async () => {
      expect((await t.json('DELETE', `/cati/groups(${nights})`)).status).toBe(204);
    });
    const row = rows.find((r) => r.Entity === 'groups')!;
    expect(row).toMatchObject({ Action: 'deleted', EntityName: 'Nights', ChangeNames: { interviewers: { [anna]: 'Anna Visser' } } });
  });

  it('a person (users) is named; rows with nothing to name have null and {}', async () => {
    const user = (await t.json('POST', '/admin/users', { body: { Name: 'piet', DisplayName: 'Piet de Vries', Role: 'viewer', Password: 'names password 1234' } })).body;
    const { rows } = await audited(t, async () => {
      expect((await t.json('PATCH', `/admin/users/${user.UserId}`, { body: { Role: 'supervisor' } })).status).toBe(200);
      expect((await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '0201234567' } })).status).toBe(201);
    });
    expect(rows.map((r) => [r.Entity, r.EntityName, r.ChangeNames])).toEqual([
      ['users', 'Piet de Vries', {}],
      ['blacklist', null, {}],
    ]);
  });

  it('the CSV export carries EntityName and ChangeNames', async () => {
    const csv = await (await t.request('GET', '/admin/audit?$format=csv&entity=interviewers')).text();
    const rows = parse(csv.replace(/^\uFEFF/, ''), { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0]!)).toEqual(['Id', 'Time', 'ActorKeyId', 'ActorUserId', 'Actor', 'Action', 'Entity', 'EntityId', 'Changes', 'EntityName', 'ChangeNames']);
    const moved = rows.find((r) => r.Changes!.includes('ParentGroups') && r.Action === 'updated')!;
    expect(moved.EntityName).toBe('Anna Visser');
    // Names are today's: the group deleted above is no longer named in older rows.
    expect(JSON.parse(moved.ChangeNames!)).toEqual({ groups: { [north]: 'North' } });
  });
});
