import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './axe.ts';
import { startUi, type UiHarness } from './ui-harness.ts';

let ui: UiHarness;
let page: Page;
let anna: number;
let north: number;

const now = new Date();
const todayStart = new Date(now.getFullYear(), now.getMonth(), now.getDate());
const todayAt = (fraction: number) => new Date(todayStart.getTime() + Math.floor((now.getTime() - todayStart.getTime()) * fraction)).toISOString();
const yesterdayNoon = new Date(todayStart.getTime() - 12 * 3_600_000).toISOString();

beforeAll(async () => {
  ui = await startUi();
  const api = ui.server.json;
  await api('POST', '/cati/surveys', { body: { SurveyId: 'p4001', SurveyName: 'Health', SampleSize: 100, State: 'Open' } });
  north = (await api('POST', '/cati/callcenters', { body: { Name: 'North site' } })).body.CallCenterId;
  anna = (await api('POST', '/cati/interviewerproperties', { body: { Name: 'anna', Password: 'secret-12' } })).body.InterviewerId;
  const call = (time: string, phone: string, duration: number, waiting: number, status: number, centre = 1) =>
    ({ Time: time, SurveyId: 'p4001', InterviewerId: anna, TelephoneNumber: phone, Duration: duration, WaitingTime: waiting, ExtendedStatus: status, CallCenterId: centre });
  const r = await api('POST', '/cati/callhistory', {
    body: {
      value: [
        call(todayAt(0.2), '0501000001', 300, 5, 1),
        call(todayAt(0.4), '0501000002', 30, 40, 2),
        call(todayAt(0.6), '0501000003', 120, 12, 1, north),
        call(yesterdayNoon, '0501000004', 60, 3, 3),
      ],
    },
  });
  expect(r.status).toBe(201);
  page = await ui.open('history');
  await page.getByRole('heading', { name: 'History', level: 1 }).waitFor();
});
afterAll(() => ui?.close());

const filters = () => page.getByRole('search', { name: 'History filters' });
const table = () => page.getByRole('tabpanel').getByRole('table');
const numbers = () => table().locator('tbody td.mono').allTextContents();
const show = () => filters().getByRole('button', { name: 'Show' }).click();

describe('History: sortable, filters in the address, presets', () => {
  it('sorts calls by duration (ascending, then descending)', async () => {
    await expect.poll(numbers).toEqual(['0501000003', '0501000002', '0501000001']);
    const header = table().getByRole('columnheader', { name: 'Duration' });
    await header.getByRole('button').click();
    await expect.poll(numbers).toEqual(['0501000002', '0501000003', '0501000001']);
    await header.getByRole('button').click();
    await expect.poll(numbers).toEqual(['0501000001', '0501000003', '0501000002']);
    expect(await header.getAttribute('aria-sort')).toBe('descending');
    expect(await axeViolations(page)).toEqual([]);
  });

  it('filters by duration and waiting ranges and by centre name, and a reload keeps filters and sort', async () => {
    await filters().getByLabel('Minimum duration (seconds)').fill('100');
    await show();
    await expect.poll(numbers).toEqual(['0501000001', '0501000003']);
    await filters().getByLabel('Maximum waiting time (seconds)').fill('10');
    await show();
    await expect.poll(numbers).toEqual(['0501000001']);
    await filters().getByLabel('Maximum waiting time (seconds)').fill('');
    await filters().getByLabel('Centre').selectOption({ label: 'North site' });
    await show();
    await expect.poll(numbers).toEqual(['0501000003']);
    expect(page.url()).toContain(`centre=${north}`);
    expect(page.url()).toContain('durMin=100');
    expect(page.url()).toContain('orderby=Duration%20desc');

    await page.reload();
    await expect.poll(numbers).toEqual(['0501000003']);
    expect(await filters().getByLabel('Minimum duration (seconds)').inputValue()).toBe('100');
    expect(await table().getByRole('columnheader', { name: 'Duration' }).getAttribute('aria-sort')).toBe('descending');
    expect(await table().textContent()).toContain('North site');
  });

  it('filters by outcome code and uses the Yesterday preset (kept in the address as a preset)', async () => {
    await page.evaluate(() => (window.location.hash = '#/history?outcome=3'));
    await expect.poll(numbers).toEqual([]);
    await filters().getByRole('button', { name: 'Yesterday' }).click();
    await expect.poll(numbers).toEqual(['0501000004']);
    expect(await filters().getByRole('button', { name: 'Yesterday' }).getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => page.url()).toContain('range=yesterday');
    expect(page.url()).not.toContain('from=');
    await page.reload();
    await expect.poll(numbers).toEqual(['0501000004']);
  });
});

describe('History: breaks by break type', () => {
  it('filters breaks by break type, kept in the address', async () => {
    const api = ui.server.json;
    for (const [type, name, minutes] of [[5, 'Coffee', 5], [6, 'Lunch', 30]] as const) {
      const r = await api('POST', '/cati/breakhistory', { body: { Time: todayAt(0.3), InterviewerId: anna, SurveyId: 'p4001', BreakTypeId: type, BreakTypeName: name, Duration: minutes * 60, IsPaid: false } });
      expect(r.status).toBe(201);
    }
    await page.evaluate(() => (window.location.hash = '#/history?tab=breaks&breakType=6'));
    await expect.poll(() => table().textContent()).toContain('Lunch');
    expect(await table().textContent()).not.toContain('Coffee');
    expect(page.url()).toContain('breakType=6');
    await filters().getByLabel('Break type').selectOption('');
    await show();
    await expect.poll(() => table().textContent()).toContain('Coffee');
    expect(page.url()).not.toContain('breakType=');
    expect(await axeViolations(page)).toEqual([]);
  });
});
