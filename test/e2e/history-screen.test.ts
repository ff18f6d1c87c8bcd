import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startUi, type UiHarness } from './ui-harness.ts';

let ui: UiHarness;
let page: Page;
let anna: number;
let ben: number;

// The browser and this process share the machine's time zone, so "today" means the same here and there.
const now = new Date();
const todayStart = new Date(now.getFullYear(), now.getMonth(), now.getDate());
const sinceMidnight = now.getTime() - todayStart.getTime();
const todayAt = (fraction: number) => new Date(todayStart.getTime() + Math.floor(sinceMidnight * fraction)).toISOString();
const yesterday = new Date(todayStart.getTime() - 3_600_000).toISOString();
/** Local midnight `days` days before today's. */
const daysAgo = (days: number) => new Date(now.getFullYear(), now.getMonth(), now.getDate() - days);
const pad = (n: number) => String(n).padStart(2, '0');
const localInput = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;

beforeAll(async () => {
  ui = await startUi();
  const api = ui.server.json;
  const variables = [{ Name: 'Age', AvailableAsCatiFilter: true }, { Name: 'Notes', AvailableAsCatiFilter: false }];
  await api('POST', '/cati/surveys', { body: { SurveyId: 'p3001', SurveyName: 'Health', SampleSize: 100, State: 'Open', Variables: variables } });
  await api('POST', '/cati/surveys', { body: { SurveyId: 'p3002', SurveyName: 'Mobility', SampleSize: 100, State: 'Open' } });
  anna = (await api('POST', '/cati/interviewerproperties', { body: { Name: 'anna', DisplayName: 'Anna Berg', Password: 'secret-12' } })).body.InterviewerId;
  ben = (await api('POST', '/cati/interviewerproperties', { body: { Name: 'ben', DisplayName: 'Ben Cole', Password: 'secret-12' } })).body.InterviewerId;
  const call = (time: string, interviewer: number, phone: string, survey = 'p3001', extra = {}) =>
    ({ Time: time, SurveyId: survey, InterviewerId: interviewer, TelephoneNumber: phone, Duration: 95, WaitingTime: 4, ...extra });
  const calls = await api('POST', '/cati/callhistory', {
    body: {
      value: [
        call(todayAt(0.3), anna, '0301110001', 'p3001', { InterviewId: 7, Variables: { Age: '42' } }),
        call(todayAt(0.6), ben, '0301110002', 'p3002'),
        call(yesterday, anna, '0301110003'),
      ],
    },
  });
  expect(calls.status).toBe(201);
  await api('POST', '/cati/breakhistory', { body: { Time: todayAt(0.4), InterviewerId: anna, SurveyId: 'p3001', BreakTypeId: 2, BreakTypeName: 'Lunch', Duration: 600, IsPaid: false } });
  await api('POST', '/cati/interviewersessionhistory', {
    body: { value: [{ InterviewerId: anna, LoginTime: todayAt(0.1) }, { InterviewerId: ben, LoginTime: yesterday, LogoutTime: todayAt(0) }] },
  });
});
// Each test starts from the screen as a fresh link opens it (today's calls, no filter), whatever the one before chose.
beforeEach(async () => {
  await page?.context().close();
  page = await ui.open('history');
  await page.getByRole('heading', { name: 'History', level: 1 }).waitFor();
});
afterAll(() => ui?.close());

const filters = () => page.getByRole('search', { name: 'History filters' });
const table = () => page.getByRole('tabpanel').getByRole('table');
const pager = (label: string) => page.getByRole('navigation', { name: `${label} pages` });
const show = () => filters().getByRole('button', { name: 'Show' }).click();
const cellTexts = async (row: number) => table().getByRole('row').nth(row).getByRole('cell').allTextContents();

describe('History screen in Chromium', () => {
  it("shows today's calls, newest first, with names and durations", async () => {
    await expect.poll(() => pager('Calls').textContent()).toContain('1–2 of 2');
    const first = await cellTexts(1);
    expect(first).toEqual(expect.arrayContaining(['Mobility (p3002)', 'Ben Cole (ben)', '0301110002', '1:35', '0:04']));
    expect(await cellTexts(2)).toEqual(expect.arrayContaining(['Health (p3001)', 'Anna Berg (anna)', '0301110001', '7']));
    expect(await table().textContent()).not.toContain('0301110003');
  });

  it('filters calls by interviewer and by survey', async () => {
    await filters().getByLabel('Interviewer').selectOption(String(anna));
    await show();
    await expect.poll(() => pager('Calls').textContent()).toContain('1–1 of 1');
    expect(await table().textContent()).toContain('0301110001');

    await filters().getByLabel('Interviewer').selectOption({ label: 'All interviewers' });
    await filters().getByLabel('Survey').selectOption('p3002');
    await show();
    await expect.poll(() => table().textContent()).not.toContain('0301110001');
    expect(await table().textContent()).toContain('0301110002');
    await filters().getByLabel('Survey').selectOption({ label: 'All surveys' });
  });

  it('widens the time range to yesterday (start inclusive, end exclusive)', async () => {
    await filters().getByLabel('From').fill(localInput(new Date(todayStart.getTime() - 86_400_000)));
    await show();
    await expect.poll(() => pager('Calls').textContent()).toContain('1–3 of 3');
    expect(await table().textContent()).toContain('0301110003');
    // The end is exclusive: ending at today's midnight leaves out every call of today.
    await filters().getByLabel('To (exclusive)').fill(localInput(todayStart));
    await show();
    await expect.poll(() => pager('Calls').textContent()).toContain('1–1 of 1');
    await filters().getByRole('button', { name: 'Today' }).click();
    await expect.poll(() => pager('Calls').textContent()).toContain('1–2 of 2');
  });

  it('shows breaks and sessions of today', async () => {
    await page.getByRole('tab', { name: 'Breaks' }).click();
    await expect.poll(() => table().textContent()).toContain('Lunch');
    expect(await cellTexts(1)).toEqual(expect.arrayContaining(['Anna Berg (anna)', 'Lunch', '10:00', 'No']));

    await page.getByRole('tab', { name: 'Sessions' }).click();
    await expect.poll(() => pager('Sessions').textContent()).toContain('1–1 of 1');
    // Ben logged in yesterday: sessions are ranged by LoginTime.
    expect(await cellTexts(1)).toEqual(expect.arrayContaining(['Anna Berg (anna)', 'still logged in']));
    expect(await filters().getByLabel('Survey').count()).toBe(0);
  });

  it('shows calls with survey variables, breaks included', async () => {
    await page.getByRole('tab', { name: 'With variables' }).click();
    await filters().getByLabel('Survey ids').fill('p3001');
    await filters().getByLabel('Variables').fill('Age');
    await filters().getByLabel('Breaks').check();
    await show();
    await table().getByRole('columnheader', { name: 'Age' }).waitFor();
    await expect.poll(() => pager('Events').textContent()).toContain('1–2 of 2');
    const header = await table().getByRole('columnheader').allTextContents();
    expect(header.at(-1)).toBe('Age');
    expect(await cellTexts(1)).toEqual(expect.arrayContaining(['0', 'Call', 'Health', 'anna', '0301110001', '42']));
    expect((await cellTexts(2)).slice(0, 2)).toEqual(['1', 'Break']);
  });

  it('shows the API message for a variable that is not a CATI filter', async () => {
    await page.getByRole('tab', { name: 'With variables' }).click();
    await filters().getByLabel('Survey ids').fill('p3001');
    await filters().getByLabel('Variables').fill('Notes');
    await show();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/Variable 'Notes' is not available as CATI filter.*HTTP 400/);
  });

  it('pages through more calls than fit on one page', async () => {
    // Two days ago, a day no other test shows: the pages hold this test's calls only.
    const at = new Date(daysAgo(2).getTime() + 12 * 3_600_000).toISOString();
    const many = Array.from({ length: 60 }, (_, i) => ({ Time: at, SurveyId: 'p3002', InterviewerId: ben, TelephoneNumber: `0409${String(i).padStart(4, '0')}` }));
    expect((await ui.server.json('POST', '/cati/callhistory', { body: { value: many } })).status).toBe(201);
    await filters().getByLabel('From').fill(localInput(daysAgo(2)));
    await filters().getByLabel('To (exclusive)').fill(localInput(daysAgo(1)));
    await show();
    await expect.poll(() => pager('Calls').textContent()).toContain('1–50 of 60');
    await pager('Calls').getByRole('button', { name: 'Next ›' }).click();
    await expect.poll(() => pager('Calls').textContent()).toContain('51–60 of 60');
    expect(await table().getByRole('row').count()).toBe(11);
  });
});
