import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUi, type UiHarness } from './ui-harness.ts';

let ui: UiHarness;
let page: Page;

beforeAll(async () => {
  ui = await startUi();
  const api = ui.server.json;
  await api('POST', '/cati/surveys', {
    body: {
      SurveyId: 'p2001', SurveyName: 'Health 2026', SampleSize: 500, State: 'Open',
      BasicProperties: { CallDeliveryMode: 'InOrder', Scheduling: 'Weekdays', ExtendedStatusGroup: 'Standard', CallGroups: true },
    },
  });
  await api('POST', '/cati/surveys', { body: { SurveyId: 'p2002', SurveyName: 'Mobility panel', SampleSize: 120, State: 'Closed' } });
  await api('POST', '/cati/surveys', { body: { SurveyId: 'p2003', SurveyName: 'Old study', SampleSize: 10, State: 'SoftDeleted' } });
  page = await ui.open('surveys');
  await page.getByRole('heading', { name: 'Surveys', level: 1 }).waitFor();
});
afterAll(() => ui?.close());

const listTable = () => page.getByRole('region', { name: 'Surveys' }).getByRole('table');
const detail = () => page.getByRole('region', { name: /\(p\d+\)$/ });
const resources = () => detail().getByRole('table', { name: 'Assigned groups and interviewers' });
const search = () => page.getByRole('search');

/** The whole list, as a test starts from: no state or name filter left by a test before. */
async function showAll() {
  await search().getByLabel('State').selectOption('');
  await search().getByLabel('Name or id').fill('');
  await search().getByRole('button', { name: 'Filter' }).click();
  await expect.poll(() => listTable().textContent()).toContain('Health 2026');
}

/**
 * Opens Health 2026 in the detail panel (which also reads the pickers' call centres, groups and interviewers again)
 * in the main call centre, whichever survey and call centre a test before left chosen.
 */
async function openHealth() {
  await showAll();
  await page.getByRole('button', { name: 'Open Health 2026' }).click();
  await page.getByRole('region', { name: 'Health 2026 (p2001)' }).waitFor();
  await detail().getByRole('combobox', { name: /^Call centre/ }).selectOption('1');
}

describe('Surveys screen in Chromium', () => {
  it('lists surveys with their state, never SoftDeleted ones', async () => {
    await expect.poll(() => listTable().textContent()).toContain('Mobility panel');
    const row = listTable().getByRole('row').filter({ hasText: 'Health 2026' });
    expect(await row.textContent()).toContain('Open');
    expect(await listTable().textContent()).not.toContain('Old study');
  });

  it('filters by state and by name', async () => {
    await search().getByLabel('State').selectOption('Closed');
    await search().getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => listTable().textContent()).not.toContain('Health 2026');
    expect(await listTable().textContent()).toContain('Mobility panel');

    await search().getByLabel('State').selectOption('');
    await search().getByLabel('Name or id').fill('HEALTH');
    await search().getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => listTable().textContent()).not.toContain('Mobility panel');
    expect(await listTable().textContent()).toContain('Health 2026');
  });

  it('shows the basic properties and the assignments with their call counts', async () => {
    const teamId = (await ui.server.json('POST', '/cati/groups', { body: { Name: 'Evening team' } })).body.GroupId as number;
    // Three single calls of the survey assigned to the group: its AssignedCallsCount.
    for (const interviewId of [11, 12, 13]) {
      expect((await ui.server.json('GET', `/cati/groups(${teamId})/Controller.AssignOnCall(surveyId='p2001',interviewId=${interviewId},callCenterId=1)`)).status).toBe(200);
    }
    await openHealth();
    const props = detail().getByRole('definition');
    await expect.poll(() => props.allTextContents()).toEqual(['Open', '500', 'In order', 'Yes', 'Weekdays', 'Standard']);
    await expect.poll(() => resources().textContent()).toContain('Evening team');
    const row = resources().getByRole('row').filter({ hasText: 'Evening team' });
    // Names, not ids: no Id column (the ids follow in the export).
    expect(await row.getByRole('cell').allTextContents()).toEqual(['Group', 'Evening team', '3', expect.any(String)]);
    expect(await resources().getByRole('columnheader').allTextContents()).not.toContain('Id');
  });

  it('assigns an interviewer to the survey and removes the assignment', async () => {
    const annaId = (await ui.server.json('POST', '/cati/interviewerproperties', { body: { Name: 'anna', DisplayName: 'Anna Berg', Password: 'secret-12' } })).body.InterviewerId as number;
    await openHealth(); // its interviewer picker read again: Anna is in it
    const assign = detail().getByRole('form', { name: 'Assign to this survey' });
    await assign.getByLabel('Assign a').selectOption('interviewer');
    await assign.getByRole('combobox', { name: 'Interviewer' }).selectOption(String(annaId));
    await assign.getByRole('button', { name: 'Assign' }).click();
    // The interviewer by display name, not login name.
    await expect.poll(() => resources().textContent()).toContain('Anna Berg');
    expect(await resources().textContent()).not.toMatch(/\banna\b/);
    const { body } = await ui.server.json('GET', `/cati/interviewers(${annaId})/Controller.GetAssignments()`);
    expect(body.value).toEqual([{ SurveyId: 'p2001', AssignmentType: 'Explicit', AssignedCallsCount: 0 }]);

    await detail().getByRole('button', { name: 'Remove interviewer Anna Berg' }).click();
    await detail().getByRole('button', { name: 'Remove interviewer Anna Berg from Health 2026' }).click();
    await expect.poll(() => resources().textContent()).not.toContain('Anna Berg');
    expect((await ui.server.json('GET', `/cati/interviewers(${annaId})/Controller.GetAssignments()`)).body.value).toEqual([]);
  });

  it('removes an interviewer listed only through call assignments: its call assignments go, and the message says so', async () => {
    await openHealth();
    const ben = (await ui.server.json('POST', '/cati/interviewerproperties', { body: { Name: 'ben.calls' } })).body.InterviewerId;
    for (const interviewId of [21, 22]) {
      await ui.server.json('GET', `/cati/interviewers(${ben})/Controller.AssignOnCall(surveyId='p2001',interviewId=${interviewId})`);
    }
    await detail().getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => resources().textContent()).toContain('ben.calls');
    await detail().getByRole('button', { name: 'Remove interviewer ben.calls' }).click();
    await detail().getByRole('button', { name: 'Remove interviewer ben.calls from Health 2026' }).click();
    await expect.poll(() => resources().textContent()).not.toContain('ben.calls');
    expect((await ui.server.json('GET', `/cati/interviewers(${ben})/Controller.GetAssignments()`)).body.value).toEqual([]);
    await expect.poll(() => page.locator('.notice > span').last().textContent()).toBe('Removed interviewer ben.calls and its 2 assigned calls from Health 2026.');
  });

  it('says why when nothing could be removed (already removed elsewhere), with no success message', async () => {
    await openHealth();
    const cleo = (await ui.server.json('POST', '/cati/interviewerproperties', { body: { Name: 'cleo' } })).body.InterviewerId;
    await ui.server.json('GET', `/cati/interviewers(${cleo})/Controller.AssignOnSurvey(surveyId='p2001')`);
    await detail().getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => resources().textContent()).toContain('cleo');
    await ui.server.json('GET', `/cati/interviewers(${cleo})/Controller.DeAssignFromSurvey(surveyId='p2001')`); // behind the screen's back
    await detail().getByRole('button', { name: 'Remove interviewer cleo' }).click();
    await detail().getByRole('button', { name: 'Remove interviewer cleo from Health 2026' }).click();
    await expect.poll(() => page.locator('.notice > span').last().textContent()).toMatch(/^Nothing was removed: interviewer cleo was no longer assigned to Health 2026/);
    expect(await resources().textContent()).not.toContain('cleo');
  });

  it('assigns a group in the chosen call centre', async () => {
    const north = (await ui.server.json('POST', '/cati/callcenters', { body: { Name: 'North' } })).body.CallCenterId;
    const night = (await ui.server.json('POST', '/cati/groups', { body: { Name: 'Night team' } })).body.GroupId;
    // Opening the survey again refreshes the call centre and group pickers.
    await openHealth();
    await detail().getByRole('combobox', { name: /^Call centre/ }).selectOption(String(north));
    await expect.poll(() => resources().textContent()).toContain('Nobody is assigned');
    const assign = detail().getByRole('form', { name: 'Assign to this survey' });
    await assign.getByLabel('Assign a').selectOption('group');
    await assign.getByRole('combobox', { name: 'Group' }).selectOption(String(night));
    await assign.getByRole('button', { name: 'Assign' }).click();
    await expect.poll(() => resources().textContent()).toContain('Night team');
    const inNorth = await ui.server.json('GET', `/cati/groups(${night})/Controller.GetAssignments(callCenterId=${north})`);
    expect(inNorth.body.value).toEqual([{ SurveyId: 'p2001', AssignmentType: 'Explicit', AssignedCallsCount: 0 }]);
    const inMain = await ui.server.json('GET', `/cati/groups(${night})/Controller.GetAssignments(callCenterId=1)`);
    expect(inMain.body.value).toEqual([]);
  });

  it('shows the 404 for a survey soft-deleted meanwhile and drops it from the list', async () => {
    expect((await ui.server.json('POST', '/cati/surveys', { body: { SurveyId: 'p2004', SurveyName: 'Ferry survey', SampleSize: 40, State: 'Open' } })).status).toBe(201);
    await showAll();
    await expect.poll(() => listTable().textContent()).toContain('Ferry survey');
    expect((await ui.server.json('PUT', "/cati/surveys('p2004')", { body: { State: 'SoftDeleted' } })).status).toBeLessThan(300);
    await page.getByRole('button', { name: 'Open Ferry survey' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/p2004.*HTTP 404/);
    await search().getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => listTable().textContent()).not.toContain('Ferry survey');
  });
});
