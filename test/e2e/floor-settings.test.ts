import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './axe.ts';
import { startUi, type UiHarness } from './ui-harness.ts';

let ui: UiHarness;
let page: Page;

beforeAll(async () => {
  ui = await startUi();
  const dialer = (await ui.server.server.ctx.keys.create('dialer', ['cati_integrate'])).key;
  const interviewer = (await ui.server.json('POST', '/cati/interviewerproperties', { body: { Name: 'dora', Password: 'pass-1234' } })).body.InterviewerId;
  await ui.server.json('POST', '/cati/surveys', { body: { SurveyId: 'p1', SurveyName: 'One', State: 'Open' }, key: dialer });
  const t = new Date(Date.now() - 60_000).toISOString();
  await ui.server.json('POST', '/cati/breakhistory', { body: { InterviewerId: interviewer, Time: t, Duration: 30, BreakTypeId: 4, BreakTypeName: 'Coffee' }, key: dialer });
  await ui.server.json('POST', '/cati/callhistory', { body: { InterviewerId: interviewer, Time: t, Duration: 30, SurveyId: 'p1', TelephoneNumber: '0201', ExtendedStatus: 77 }, key: dialer });
  page = await ui.open('settings');
  await page.getByRole('heading', { name: 'Break types' }).waitFor();
});
afterAll(() => ui?.close());

const breaks = () => page.getByRole('region', { name: 'Break types' });
const outcomes = () => page.getByRole('region', { name: 'Outcomes' });

describe('Settings → Break types and Outcomes in Chromium', () => {
  it('edits a break type\'s name, limit and paid flag; refuses a negative limit', async () => {
    await expect.poll(() => breaks().getByLabel('Name of break type 4').inputValue()).toBe('Coffee');
    await breaks().getByLabel('Limit in minutes of Coffee').fill('-1');
    await breaks().getByRole('button', { name: 'Save Coffee' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('must be a whole number of minutes');
    expect((await ui.server.json('GET', '/cati/breaktypes(4)')).body.MaxMinutes).toBeNull();

    await breaks().getByLabel('Name of break type 4').fill('Coffee break');
    await breaks().getByLabel('Limit in minutes of Coffee').fill('15');
    await breaks().getByLabel('Coffee is paid').check();
    await breaks().getByRole('button', { name: 'Save Coffee' }).click();
    await expect.poll(() => page.locator('.notice.success').textContent()).toContain('Saved break type Coffee break.');
    expect((await ui.server.json('GET', '/cati/breaktypes(4)')).body).toMatchObject({ Name: 'Coffee break', MaxMinutes: 15, IsPaid: true });

    // Empty = no limit.
    await breaks().getByLabel('Limit in minutes of Coffee break').fill('');
    await breaks().getByRole('button', { name: 'Save Coffee break' }).click();
    await expect.poll(async () => (await ui.server.json('GET', '/cati/breaktypes(4)')).body.MaxMinutes).toBeNull();
  });

  it('adds, renames, recategorises and deletes an outcome; History shows the code by name', async () => {
    await expect.poll(() => outcomes().getByLabel('Name of outcome 1', { exact: true }).inputValue()).toBe('Completed interview');
    const add = outcomes().getByRole('form', { name: 'Add an outcome' });
    await add.getByLabel('Code').fill('77');
    await add.getByLabel('Name').fill('Quota full');
    await add.getByLabel('Category').selectOption('Ineligible');
    await add.getByRole('button', { name: 'Add outcome' }).click();
    await expect.poll(() => outcomes().getByLabel('Name of outcome 77').count()).toBe(1);
    expect((await ui.server.json('GET', '/cati/extendedstatuses(77)')).body).toMatchObject({ Name: 'Quota full', Category: 'Ineligible' });

    // A duplicate code is refused with the server's message.
    await add.getByLabel('Code').fill('77');
    await add.getByLabel('Name').fill('Again');
    await add.getByRole('button', { name: 'Add outcome' }).click();
    await expect.poll(() => page.getByRole('alert').last().textContent()).toContain('409');

    await outcomes().getByLabel('Name of outcome 77').fill('Quota reached');
    await outcomes().getByLabel('Category of outcome 77').selectOption('Other');
    await outcomes().getByRole('button', { name: 'Save outcome 77' }).click();
    await expect.poll(async () => (await ui.server.json('GET', '/cati/extendedstatuses(77)')).body).toMatchObject({ Name: 'Quota reached', Category: 'Other' });

    await page.evaluate(() => (window.location.hash = '#/history?range=week'));
    await expect.poll(() => page.getByRole('table', { name: 'Calls' }).textContent()).toContain('Quota reached (77)');
    expect(await axeViolations(page)).toEqual([]);

    await page.evaluate(() => (window.location.hash = '#/settings'));
    await outcomes().getByRole('button', { name: 'Delete outcome 77' }).click();
    await outcomes().getByRole('button', { name: 'Delete outcome 77 (Quota reached)' }).click();
    await expect.poll(() => outcomes().getByLabel('Name of outcome 77').count()).toBe(0);
    expect((await ui.server.json('GET', '/cati/extendedstatuses(77)')).status).toBe(404);
    expect(await axeViolations(page)).toEqual([]);
  });
});
