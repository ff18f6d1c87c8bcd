import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUi, type UiHarness } from './ui-harness.ts';

// A chart that shows a subset says so in its caption (docs/screens.md#truth): Productivity charts the top 20.
let ui: UiHarness;
let page: Page;

const now = new Date();
const at = (hour: number, minute = 0) => new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1, hour, minute).toISOString();

beforeAll(async () => {
  ui = await startUi();
  const api = ui.server.json;
  await api('POST', '/cati/surveys', { body: { SurveyId: 'p6101', SurveyName: 'Health', SampleSize: 100, State: 'Open' } });
  const sessions: unknown[] = [];
  const calls: unknown[] = [];
  for (let i = 0; i < 23; i++) {
    const id = (await api('POST', '/cati/interviewerproperties', { body: { Name: `int${i}`, DisplayName: `Interviewer ${i}` } })).body.InterviewerId as number;
    sessions.push({ InterviewerId: id, CallCenterId: 1, LoginTime: at(8), LogoutTime: at(10) });
    for (let c = 0; c <= i % 5; c++) calls.push({ Time: at(9, c), SurveyId: 'p6101', InterviewerId: id, TelephoneNumber: '0611', ExtendedStatus: 1, Duration: 60, WaitingTime: 10, CallCenterId: 1 });
  }
  expect((await api('POST', '/cati/interviewersessionhistory', { body: { value: sessions } })).status).toBe(201);
  expect((await api('POST', '/cati/callhistory', { body: { value: calls } })).status).toBe(201);
  page = await ui.open('productivity?range=yesterday');
  await page.getByRole('heading', { name: 'Productivity', level: 1 }).waitFor();
});
afterAll(() => ui?.close());

describe('Productivity chart caption', () => {
  it('says "Top 20 of 23 interviewers" when the chart shows 20 of the 23 listed', async () => {
    const figure = page.getByRole('figure');
    await expect.poll(() => figure.locator('figcaption').textContent()).toBe('Top 20 of 23 interviewers by completes per login hour');
    expect(await figure.getByRole('img').getAttribute('aria-label')).toMatch(/^Completes per login hour by interviewer, 20 of 23 shown;/);
    expect(await page.getByRole('table', { name: 'Productivity by interviewer' }).locator('tbody tr').count()).toBe(23);
  });

});
