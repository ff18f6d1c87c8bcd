import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { todayIn } from '../../common/time-zones.ts';
import { axeViolations } from './axe.ts';
import { startUi, type UiHarness } from './ui-harness.ts';

let ui: UiHarness;
let page: Page;
let east: number;

// The centre's zone is not the browser's: "today" is the centre's (docs/cati-api.md#floor).
const ZONE = 'Asia/Tokyo';
const now = Date.now();
const [dayStart] = todayIn(ZONE, now);
// Spread over the part of the centre's day gone by (at its start when the test runs in the day's first minute).
const todayAt = (fraction: number) => new Date(dayStart + Math.floor(Math.max(0, now - 60_000 - dayStart) * fraction)).toISOString();
const yesterday = new Date(dayStart - 3 * 3_600_000).toISOString();

beforeAll(async () => {
  ui = await startUi();
  const api = ui.server.json;
  await api('POST', '/cati/surveys', { body: { SurveyId: 'p5001', SurveyName: 'Health', SampleSize: 10, State: 'Open' } });
  await api('POST', '/cati/surveys', { body: { SurveyId: 'p5002', SurveyName: 'Travel', SampleSize: 200, State: 'Open' } });
  await api('POST', '/cati/surveys', { body: { SurveyId: 'p5003', SurveyName: 'Archive', SampleSize: 5, State: 'Closed' } });
  east = (await api('POST', '/cati/callcenters', { body: { Name: 'East', TimeZone: ZONE } })).body.CallCenterId;
  const call = (survey: string, time: string, status: number | null, phone: string, centre = east, duration = 120, waiting = 30) =>
    ({ Time: time, SurveyId: survey, TelephoneNumber: phone, Duration: duration, WaitingTime: waiting, ExtendedStatus: status, CallCenterId: centre });
  const r = await api('POST', '/cati/callhistory', {
    body: {
      value: [
        // Health today in East: 2 completes, 1 refusal, 1 no contact, 1 appointment, 1 unknown code and 1 without one (Other).
        call('p5001', todayAt(0.1), 1, '0600000001', east, 600, 150),
        call('p5001', todayAt(0.2), 1, '0600000002', east, 600, 150),
        call('p5001', todayAt(0.3), 5, '0600000003', east, 20, 0),
        call('p5001', todayAt(0.4), 2, '0600000004', east, 0, 40),
        call('p5001', todayAt(0.5), 6, '0600000005', east, 90, 10),
        call('p5001', todayAt(0.6), 99, '0600000006', east, 10, 0),
        call('p5001', todayAt(0.7), null, '0600000007', east, 130, 0),
        // Travel today: 1 complete, 1 busy; Archive (closed) today: 1 refusal.
        call('p5002', todayAt(0.8), 1, '0600000008'),
        call('p5002', todayAt(0.9), 3, '0600000009'),
        call('p5003', todayAt(0.5), 5, '0600000010'),
        // Yesterday in East, and today in another centre: not in today's table, but completes so far.
        call('p5001', yesterday, 1, '0600000011'),
        call('p5001', todayAt(0.5), 1, '0600000012', 1),
      ],
    },
  });
  expect(r.status).toBe(201);
  page = await ui.open(`surveys-today?centre=${east}`);
  await page.getByRole('heading', { name: 'Surveys today', level: 1 }).waitFor();
});
afterAll(() => ui?.close());

const table = () => page.getByRole('table', { name: 'Surveys today' });
const rowOf = (name: string) => table().locator('tbody tr', { has: page.getByRole('rowheader', { name: new RegExp(`^${name}`) }) });
const cells = async (name: string) => (await rowOf(name).locator('td').allTextContents()).map((t) => t.trim().replace(/\s+/g, ' '));

describe('Surveys today', () => {
  it("shows each survey's calls today by outcome category, completes per calling hour and progress against the sample", async () => {
    // Calls, Completes, Refusals, No contact, Appointments, Ineligible, Other, Completes / hour, Progress
    await expect.poll(() => cells('Health')).toEqual(['7', '2', '1', '1', '1', '0', '2', '4.0', '4 / 10 (40%)']);
    expect(await cells('Travel')).toEqual(['2', '1', '0', '1', '0', '0', '0', '12.0', '1 / 200 (1%)']);
    // A closed survey is listed when it had calls today.
    expect(await cells('Archive')).toEqual(['1', '0', '1', '0', '0', '0', '0', '0.0', '0 / 5 (0%)']);
    const totals = (await table().locator('tfoot td').allTextContents()).map((t) => t.trim());
    expect(totals.slice(0, 7)).toEqual(['10', '3', '2', '2', '1', '0', '2']);
    expect(await rowOf('Health').getByRole('progressbar').evaluate((el) => (el as HTMLProgressElement).value)).toBe(4);
    expect(await page.getByText(`Today in ${ZONE}`).count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('sorts by a column and keeps the centre and sort in the address across a reload', async () => {
    await table().getByRole('columnheader', { name: 'Calls', exact: true }).getByRole('button').click();
    const names = () => table().locator('tbody th[scope="row"]').allTextContents();
    await expect.poll(names).toEqual(['Archive p5003', 'Travel p5002', 'Health p5001']);
    expect(page.url()).toContain(`centre=${east}`);
    expect(page.url()).toContain('orderby=Calls');
    await page.reload();
    await expect.poll(names).toEqual(['Archive p5003', 'Travel p5002', 'Health p5001']);
    expect(await page.getByLabel('Centre').inputValue()).toBe(String(east));
  });

  it('draws calls per hour today against yesterday, with a summary for screen readers', async () => {
    const chart = page.getByRole('img', { name: /^Calls per hour/ });
    await chart.waitFor();
    expect(await chart.evaluate((el) => el.tagName)).toBe('CANVAS');
    expect(await chart.getAttribute('aria-label')).toMatch(/^Calls per hour \(Asia\/Tokyo.*\): 10 today, 1 yesterday; busiest hour today/);
    const hidden = page.locator('figure table');
    expect(await hidden.locator('thead th').allTextContents()).toEqual(['Hour', 'Today', 'Yesterday']);
    const perHour = await hidden.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((c) => Number(c.textContent))));
    expect(perHour).toHaveLength(24);
    expect(perHour.reduce((s, [t]) => s + t!, 0)).toBe(10);
    expect(perHour.reduce((s, [, y]) => s + y!, 0)).toBe(1);
  });

  it("a number opens History with that survey's calls of that category today in the centre", async () => {
    await rowOf('Health').getByRole('link', { name: /^2 completes today, Health/ }).click();
    await page.getByRole('heading', { name: 'History', level: 1 }).waitFor();
    const phones = () => page.getByRole('tabpanel').getByRole('table').locator('tbody td.mono').allTextContents();
    await expect.poll(phones).toEqual(['0600000002', '0600000001']);
    expect(page.url()).toMatch(/#\/history\?.*survey=p5001/);
    expect(page.url()).toContain('outcome=Complete');
    expect(page.url()).toContain(`centre=${east}`);

    await page.evaluate(() => history.back());
    await page.getByRole('heading', { name: 'Surveys today', level: 1 }).waitFor();
    await rowOf('Health').getByRole('link', { name: /^2 other today, Health/ }).click();
    await expect.poll(phones).toEqual(['0600000007', '0600000006']);
  });
});
