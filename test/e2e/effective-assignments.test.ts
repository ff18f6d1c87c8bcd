import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './axe.ts';
import { startUi, type UiHarness } from './ui-harness.ts';

let ui: UiHarness;
let page: Page;

beforeAll(async () => {
  ui = await startUi();
  const api = ui.server.json;
  await api('POST', '/cati/surveys', { body: { SurveyId: 'p6001', SurveyName: 'Transport', SampleSize: 200, State: 'Open' } });
  const teamA = (await api('POST', '/cati/groups', { body: { Name: 'Team A' } })).body.GroupId;
  const teamA1 = (await api('POST', '/cati/groups', { body: { Name: 'Team A1', ParentGroups: [teamA] } })).body.GroupId;
  const iv = async (Name: string, ParentGroups: number[]) =>
    (await api('POST', '/cati/interviewerproperties', { body: { Name, Password: 'secret-12', ParentGroups } })).body.InterviewerId as number;
  await iv('anna', [teamA1]);
  const ben = await iv('ben', []);
  const cara = await iv('cara', [teamA]);
  await iv('dora', []);
  expect((await api('GET', `/cati/groups(${teamA})/Controller.AssignOnSurvey(surveyId='p6001',callCenterId=1)`)).status).toBe(200);
  expect((await api('GET', `/cati/interviewers(${ben})/Controller.AssignOnSurvey(surveyId='p6001')`)).status).toBe(200);
  await api('POST', '/cati/interviewersessionhistory', { body: { value: [{ InterviewerId: cara, LoginTime: new Date(Date.now() - 60_000).toISOString() }] } });
  page = await ui.open('surveys');
  await page.getByRole('heading', { name: 'Surveys', level: 1 }).waitFor();
});
afterAll(() => ui?.close());

const rowsOf = (name: string) =>
  page.getByRole('table', { name }).locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim())));

describe('Effective assignments', () => {
  it('a survey shows who can work it (explicitly, through a group or its subgroup) and how many are logged in', async () => {
    await page.getByRole('button', { name: 'Open Transport' }).click();
    await expect.poll(() => page.getByTestId('survey-workers-summary').textContent()).toMatch(/3 interviewers in this call centre, 1 logged in now/);
    expect(await rowsOf('Who can work this survey')).toEqual([
      // The interviewer's display name (its login name when it has none), then the login name.
      ['anna', 'anna', 'Group Team A (through Team A1)', 'No'],
      ['ben', 'ben', 'Explicit', 'No'],
      ['cara', 'cara', 'Group Team A', 'Yes'],
    ]);
    await page.getByRole('table', { name: 'Who can work this survey' }).getByRole('columnheader', { name: 'Logged in' }).getByRole('button').click();
    await page.getByRole('table', { name: 'Who can work this survey' }).getByRole('columnheader', { name: 'Logged in' }).getByRole('button').click();
    await expect.poll(async () => (await rowsOf('Who can work this survey'))[0]?.[0]).toBe('cara');
    expect(await axeViolations(page)).toEqual([]);
  });

  it('an interviewer shows its surveys and how', async () => {
    await page.evaluate(() => (window.location.hash = '#/interviewers'));
    /** A row's Surveys, from its action menu. */
    const surveysOf = async (login: string) => {
      await page.getByRole('button', { name: `Actions for ${login}` }).click();
      await page.getByRole('menuitem', { name: `Surveys of ${login}` }).click();
    };
    await surveysOf('anna');
    await expect.poll(() => rowsOf('Surveys of anna')).toEqual([['Transport p6001', 'Group Team A', '0']]);
    await surveysOf('ben');
    await expect.poll(() => rowsOf('Surveys of ben')).toEqual([['Transport p6001', 'Explicit', '0']]);
    await surveysOf('dora');
    await expect.poll(() => page.getByRole('table', { name: 'Surveys of dora' }).textContent()).toContain('Not assigned to any survey.');
    expect(await axeViolations(page)).toEqual([]);
  });
});
