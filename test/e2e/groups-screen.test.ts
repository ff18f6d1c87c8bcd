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

/** Lists the groups whose name contains `text` (the screen's search; '' lists them all). */
async function searchFor(text: string) {
  await page.getByRole('search').getByLabel('Search by name').fill(text);
  await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
}

/**
 * Puts a group in through the API (as a script would), then lists the groups whose name contains `shown` (its own
 * name unless told) and waits for the screen to show it: one page holds 50, so a search keeps it on the page.
 */
async function seed(Name: string, Description: string | null = null, ParentGroups: number[] = [], shown = Name) {
  const r = await ui.server.json('POST', '/cati/groups', { body: { Name, Description, ParentGroups } });
  expect(r.status).toBe(201);
  await searchFor(shown);
  await expect.poll(() => listTable().textContent()).toContain(Name);
  return r.body.GroupId as number;
}

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
    await seed('Late shift seniors', 'Experienced', [], 'Late');
    await page.getByRole('button', { name: 'Edit Late shift seniors' }).click();
    await form().getByLabel('Name', { exact: true }).fill('Late seniors');
    await form().getByLabel('Description').fill('Five years or more');
    await form().getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => listTable().textContent()).toContain('Five years or more');
    expect(await groupByName('Late seniors')).toMatchObject({ Description: 'Five years or more', '@odata.etag': 'W/"2"' });
  });

  it('searches groups by name', async () => {
    await seed('Trainees', 'First month');
    await seed('Veterans', 'Ten years or more');
    await searchFor('VETERAN');
    await expect.poll(() => listTable().textContent()).not.toContain('First month');
    expect(await listTable().textContent()).toContain('Veterans');
    expect(await listTable().textContent()).not.toContain('CATI Interviewers');
    await searchFor('');
    await expect.poll(() => listTable().textContent()).toContain('First month');
  });

  it('shows the members of a group per call centre', async () => {
    const evening = await seed('Evening shift', 'Interviewers 16-22');
    const api = ui.server.json;
    await api('POST', '/cati/interviewerproperties', { body: { Name: 'anna', DisplayName: 'Anna Berg', Password: 'secret-12', ParentGroups: [evening] } });
    await api('POST', '/cati/interviewerproperties', { body: { Name: 'nils', DisplayName: 'Nils North', Password: 'secret-12', CallCenterId: northId, ParentGroups: [evening] } });
    await api('POST', '/cati/interviewerproperties', { body: { Name: 'otto', DisplayName: 'Otto Other', Password: 'secret-12' } });
    await page.getByRole('button', { name: 'Open Evening shift', exact: true }).click();
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
    const morning = await seed('Morning shift', 'Interviewers 6-12', [], 'Morning');
    await seed('Morning seniors', 'Experienced', [morning], 'Morning');
    const surveys = () => detail().getByRole('table', { name: 'Survey assignments' });
    await page.getByRole('button', { name: 'Open Morning shift', exact: true }).click();
    await expect.poll(() => detail().getByRole('heading').first().textContent()).toBe('Group Morning shift');
    // Call centre 1's assignments (the picker keeps the centre chosen last while the screen is open).
    await detail().getByRole('combobox', { name: /^Call centre/ }).selectOption('1');
    await expect.poll(() => surveys().textContent()).toContain('Not assigned');
    const assign = detail().getByRole('form', { name: 'Assign to a survey' });
    await assign.getByLabel('Survey').selectOption('p1001');
    await assign.getByRole('button', { name: 'Assign' }).click();
    await expect.poll(() => surveys().textContent()).toContain('Health 2026 (p1001)');
    expect(await surveys().textContent()).toContain('Assigned to this group');
    const { body } = await ui.server.json('GET', `/cati/groups(${morning})/Controller.GetAssignments(callCenterId=1)`);
    expect(body.value).toEqual([{ SurveyId: 'p1001', AssignmentType: 'Explicit', AssignedCallsCount: 0 }]);

    // A child group shows the parent's assignment as implicit, without a remove button.
    await page.getByRole('button', { name: 'Open Morning seniors', exact: true }).click();
    await expect.poll(() => surveys().textContent()).toContain('Through a parent group');
    expect(await detail().getByRole('button', { name: /^Remove assignment/ }).count()).toBe(0);

    await page.getByRole('button', { name: 'Open Morning shift', exact: true }).click();
    await expect.poll(() => surveys().textContent()).toContain('Assigned to this group');
    await detail().getByRole('button', { name: 'Remove assignment to p1001' }).click();
    await detail().getByRole('button', { name: 'Remove Morning shift from Health 2026 (p1001)' }).click();
    await expect.poll(() => surveys().textContent()).toContain('Not assigned');
    const after = await ui.server.json('GET', `/cati/groups(${morning})/Controller.GetAssignments(callCenterId=1)`);
    expect(after.body.value).toEqual([]);
  });

  it('refuses to delete a group changed meanwhile (If-Match), then deletes it after a refresh', async () => {
    const retired = await seed('Retired team', 'Kept for the records');
    await ui.server.json('PUT', `/cati/groups(${retired})`, { body: { Description: 'Changed elsewhere' } });
    await page.getByRole('button', { name: 'Delete Retired team' }).click();
    await page.getByRole('button', { name: 'Delete group Retired team' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/HTTP 412/);
    expect((await ui.server.json('GET', `/cati/groups(${retired})`)).status).toBe(200);

    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => listTable().textContent()).toContain('Changed elsewhere');
    await page.getByRole('button', { name: 'Delete Retired team' }).click();
    await page.getByRole('button', { name: 'Delete group Retired team' }).click();
    await expect.poll(() => listTable().textContent()).not.toContain('Retired team');
    expect((await ui.server.json('GET', `/cati/groups(${retired})`)).status).toBe(404);
  });

  it('pages through more groups than fit on one page', async () => {
    for (let i = 1; i <= 52; i++) expect((await ui.server.json('POST', '/cati/groups', { body: { Name: `Rota ${String(i).padStart(2, '0')}` } })).status).toBe(201);
    // This test's 52 rotas, whatever other groups there are.
    await searchFor('rota');
    const pager = page.getByRole('navigation', { name: 'Groups pages' });
    await expect.poll(() => pager.textContent()).toContain('1–50 of 52');
    await pager.getByRole('button', { name: 'Next ›' }).click();
    await expect.poll(() => pager.textContent()).toContain('51–52 of 52');
    expect(await listTable().textContent()).toContain('Rota 52');
    expect(await listTable().textContent()).not.toContain('Rota 01');
  });
});
