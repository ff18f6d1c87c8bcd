import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './axe.ts';
import { startUi, type UiHarness } from './ui-harness.ts';

/**
 * docs/screens.md#truth on the live floor: surveys by name (id in small print); Lock acts on the row the person chose — a
 * confirmation naming the interviewer, and the rows keep their order while it is open, however the floor changes.
 */
let ui: UiHarness;
let page: Page;
let dialer: string;
const ids: Record<string, number> = {};
const LIVE = { timeout: 5000 };
const iso = (ms: number) => new Date(ms).toISOString();

const names = () => page.locator('.floor-table tbody tr td:first-child').allTextContents().then((t) => t.map((s) => s.trim().replace(/\s+locked$/, '')));
const call = async (who: string) => {
  const r = await ui.server.json('POST', '/cati/callhistory', {
    key: dialer,
    body: { InterviewerId: ids[who], CallCenterId: 1, SurveyId: 'p4411', Time: iso(Date.now() - 5000), Duration: 3, TelephoneNumber: '0612345678', ExtendedStatus: 1 },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
};

beforeAll(async () => {
  ui = await startUi();
  dialer = (await ui.server.server.ctx.keys.create('dialer', ['cati_integrate'])).key;
  const api = ui.server.json;
  expect((await api('POST', '/cati/surveys', { body: { SurveyId: 'p4411', SurveyName: 'Health panel', State: 'Open' } })).status).toBe(201);
  for (const [login, display] of [['anna', 'Anna Berg'], ['ben', 'Ben Cole'], ['cleo', 'Cleo Diaz']] as const) {
    ids[login] = (await api('POST', '/cati/interviewerproperties', { body: { Name: login, DisplayName: display, Password: 'pass-1234' } })).body.InterviewerId;
    const r = await api('POST', '/cati/interviewersessionhistory', { key: dialer, body: { InterviewerId: ids[login], CallCenterId: 1, LoginTime: iso(Date.now() - 3_600_000) } });
    expect(r.status).toBe(201);
  }
  await call('anna');
  await call('anna');
  await call('ben');
  page = await ui.open('floor?orderby=CallsToday%20desc');
  await page.locator('.live-state', { hasText: /^Live$/ }).waitFor();
  await page.locator('.floor-table tbody tr').nth(2).waitFor();
});
afterAll(() => ui?.close());

describe('Floor: names and safe live actions', () => {
  it('shows the survey by name with its id in small print, in the rows and the survey filter', async () => {
    await expect.poll(names, LIVE).toEqual(['Anna Berg', 'Ben Cole', 'Cleo Diaz']);
    const cell = page.locator('.floor-table tbody tr', { hasText: 'Anna Berg' }).locator('td').nth(4);
    expect((await cell.textContent())?.trim().replace(/\s+/g, ' ')).toBe('Health panel p4411');
    expect(await cell.locator('.survey-id').textContent()).toBe('p4411');
    const options = await page.getByRole('search', { name: 'Floor filters' }).getByLabel('Survey').locator('option').allTextContents();
    expect(options).toContain('Health panel (p4411)');
  });

  it('holds the rows in place while a Lock question is open, and asks naming the interviewer', async () => {
    const ben = page.locator('.floor-table tbody tr', { hasText: 'Ben Cole' });
    await ben.getByRole('button', { name: 'Lock ben' }).click();
    const confirm = ben.getByRole('button', { name: 'Lock Ben Cole (ben)' });
    await confirm.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    // Cleo makes three calls: sorted by calls today she would move to the top, under the pointer.
    await call('cleo');
    await call('cleo');
    await call('cleo');
    await expect.poll(() => page.locator('.floor-table tbody tr', { hasText: 'Cleo Diaz' }).locator('td').nth(5).textContent(), LIVE).toBe('3');
    expect(await names()).toEqual(['Anna Berg', 'Ben Cole', 'Cleo Diaz']);
    await confirm.click();
    await expect.poll(async () => (await ui.server.json('GET', `/cati/interviewers(${ids.ben})`)).body.IsLocked, LIVE).toBe(true);
    // The question is answered: the order follows the sort again.
    await expect.poll(names, LIVE).toEqual(['Cleo Diaz', 'Anna Berg', 'Ben Cole']);
    await expect.poll(() => page.locator('.floor-table tbody tr', { hasText: 'Ben Cole' }).textContent(), LIVE).toContain('locked');
  });
});
