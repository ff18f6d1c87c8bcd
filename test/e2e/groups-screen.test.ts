import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUi, type UiHarness } from './ui-harness.ts';

let ui: UiHarness;
let page: Page;
let northId: number;

beforeAll(async () => {
  ui = await startUi();
  const api = ui.server.json;
  // Surveys come from the interviewing system (ingest), call centres from the extension collection.
  await api('POST', '/cati/surveys', { body: { SurveyId: 'p1001', SurveyName: 'Health 2026', SampleSize: 500, State: 'Open' } });
  await api('POST', '/cati/surveys', { body: { SurveyId: 'p1002', SurveyName: 'Mobility', SampleSize: 200, State: 'Closed' } });
  northId = (await api('POST', '/cati/callcenters', { body: { Name: 'North' } })).body.CallCenterId;
  page = await ui.open('groups');
  await page.getByRole('heading', { name: 'Groups', level: 1 }).waitFor();
});
afterAll(() => ui?.close());

const listTable = () => page.getByRole('region', { name: 'Groups' }).getByRole('table');
const form = () => page.getByRole('region', { name: /New group|Edit / });
const detail = () => page.getByRole('region', { name: /^Group / });
const groupByName = async (name: string) =>
  (await ui.server.json('GET', `/cati/groups?$filter=Name eq '${name}'`)).body.value[0];

async function create(name: string, description: string, parents: string[] = []) {
  await form().getByLabel('Name', { exact: true }).fill(name);
  await form().getByLabel('Description').fill(description);
  for (const p of parents) await form().getByRole('checkbox', { name: p }).check();
  await form().getByRole('button', { name: 'Create' }).click();
}

describe('Groups screen in Chromium', () => {
  it('lists the root group and creates groups with a parent', async () => {
    await expect.poll(() => listTable().textContent()).toContain('CATI Interviewers');
    await create('Day shift', 'Interviewers 8-16');
    await expect.poll(() => listTable().textContent()).toContain('Day shift');
    await create('Day shift seniors', 'Experienced', ['Day shift']);
    await expect.poll(() => listTable().textContent()).toContain('Day shift seniors');
    const day = await groupByName('Day shift');
    const seniors = await groupByName('Day shift seniors');
    expect(seniors).toMatchObject({ Description: 'Experienced', ParentGroups: [day.GroupId] });
    // The parent is shown by name in the list.
    const row = listTable().getByRole('row').filter({ hasText: 'Day shift seniors' });
    expect(await row.getByRole('cell').nth(3).textContent()).toBe('Day shift');
  });

  it('edits name and description with the ETag of the row', async () => {
    await page.getByRole('button', { name: 'Edit Day shift seniors' }).click();
    await form().getByLabel('Name', { exact: true }).fill('Seniors');
    await form().getByLabel('Description').fill('Five years or more');
    await form().getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => listTable().textContent()).toContain('Five years or more');
    expect(await groupByName('Seniors')).toMatchObject({ Description: 'Five years or more', '@odata.etag': 'W/"2"' });
  });

  it('searches groups by name', async () => {
    await page.getByRole('search').getByLabel('Search by name').fill('SENIOR');
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => listTable().textContent()).not.toContain('Interviewers 8-16');
    expect(await listTable().textContent()).toContain('Seniors');
    expect(await listTable().textContent()).not.toContain('CATI Interviewers');
    await page.getByRole('search').getByLabel('Search by name').fill('');
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => listTable().textContent()).toContain('Interviewers 8-16');
  });

  it('shows the members of a group per call centre', async () => {
    const day = await groupByName('Day shift');
    const api = ui.server.json;
    await api('POST', '/cati/interviewerproperties', { body: { Name: 'anna', DisplayName: 'Anna Berg', Password: 'secret-12', ParentGroups: [day.GroupId] } });
    await api('POST', '/cati/interviewerproperties', { body: { Name: 'nils', DisplayName: 'Nils North', Password: 'secret-12', CallCenterId: northId, ParentGroups: [day.GroupId] } });
    await api('POST', '/cati/interviewerproperties', { body: { Name: 'otto', DisplayName: 'Otto Other', Password: 'secret-12' } });
    await page.getByRole('button', { name: 'Open Day shift', exact: true }).click();
    const members = () => detail().getByRole('table', { name: 'Members in this call centre' });
    await expect.poll(() => members().textContent()).toContain('Anna Berg');
    expect(await members().textContent()).not.toContain('Nils North');
    expect(await members().textContent()).not.toContain('Otto');
    await detail().getByRole('combobox', { name: /^Call centre/ }).selectOption(String(northId));
    await expect.poll(() => members().textContent()).toContain('Nils North');
    expect(await members().textContent()).not.toContain('Anna Berg');
    await detail().getByRole('combobox', { name: /^Call centre/ }).selectOption('1');
    await expect.poll(() => members().textContent()).toContain('Anna Berg');
  });

  it('assigns the group to a survey and removes the assignment', async () => {
    const surveys = () => detail().getByRole('table', { name: 'Survey assignments' });
    await expect.poll(() => surveys().textContent()).toContain('Not assigned');
    const assign = detail().getByRole('form', { name: 'Assign to a survey' });
    await assign.getByLabel('Survey').selectOption('p1001');
    await assign.getByRole('button', { name: 'Assign' }).click();
    await expect.poll(() => surveys().textContent()).toContain('Health 2026 (p1001)');
    expect(await surveys().textContent()).toContain('Assigned to this group');
    const day = await groupByName('Day shift');
    const { body } = await ui.server.json('GET', `/cati/groups(${day.GroupId})/Controller.GetAssignments(callCenterId=1)`);
    expect(body.value).toEqual([{ SurveyId: 'p1001', AssignmentType: 'Explicit', AssignedCallsCount: 0 }]);

    // A child group shows the parent's assignment as implicit, without a remove button.
    await page.getByRole('button', { name: 'Open Seniors' }).click();
    await expect.poll(() => surveys().textContent()).toContain('Through a parent group');
    expect(await detail().getByRole('button', { name: /^Remove assignment/ }).count()).toBe(0);

    await page.getByRole('button', { name: 'Open Day shift', exact: true }).click();
    await expect.poll(() => surveys().textContent()).toContain('Assigned to this group');
    await detail().getByRole('button', { name: 'Remove assignment to p1001' }).click();
    await detail().getByRole('button', { name: 'Remove Day shift from Health 2026 (p1001)' }).click();
    await expect.poll(() => surveys().textContent()).toContain('Not assigned');
    const after = await ui.server.json('GET', `/cati/groups(${day.GroupId})/Controller.GetAssignments(callCenterId=1)`);
    expect(after.body.value).toEqual([]);
  });

  it('refuses to delete a group changed meanwhile (If-Match), then deletes it after a refresh', async () => {
    const seniors = await groupByName('Seniors');
    await ui.server.json('PUT', `/cati/groups(${seniors.GroupId})`, { body: { Description: 'Changed elsewhere' } });
    await page.getByRole('button', { name: 'Delete Seniors' }).click();
    await page.getByRole('button', { name: 'Delete group Seniors' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/HTTP 412/);
    expect((await ui.server.json('GET', `/cati/groups(${seniors.GroupId})`)).status).toBe(200);

    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => listTable().textContent()).toContain('Changed elsewhere');
    await page.getByRole('button', { name: 'Delete Seniors' }).click();
    await page.getByRole('button', { name: 'Delete group Seniors' }).click();
    await expect.poll(() => listTable().textContent()).not.toContain('Seniors');
    expect((await ui.server.json('GET', `/cati/groups(${seniors.GroupId})`)).status).toBe(404);
  });

  it('pages through more groups than fit on one page', async () => {
    for (let i = 1; i <= 52; i++) await ui.server.json('POST', '/cati/groups', { body: { Name: `Team ${String(i).padStart(2, '0')}` } });
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    const pager = page.getByRole('navigation', { name: 'Groups pages' });
    await expect.poll(() => pager.textContent()).toContain('1–50 of 54');
    await pager.getByRole('button', { name: 'Next ›' }).click();
    await expect.poll(() => pager.textContent()).toContain('51–54 of 54');
    expect(await listTable().textContent()).toContain('Team 52');
    expect(await listTable().textContent()).not.toContain('Team 01');
  });
});
