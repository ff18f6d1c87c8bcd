import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './axe.ts';
import { startUi, type UiHarness } from './ui-harness.ts';

// Settings → Activity in Chromium: the audit log with filters in the address, readable changes, more rows on
// request, the export of the table (every matching row), keyboard and axe.
let ui: UiHarness;
let page: Page;
let groupId: number;

beforeAll(async () => {
  ui = await startUi();
  const clerk = (await ui.server.server.ctx.keys.create('night clerk', ['cati_administrate'])).key;
  groupId = (await ui.server.json('POST', '/cati/groups', { body: { Name: 'Early shift' }, key: clerk })).body.GroupId;
  expect((await ui.server.json('PATCH', `/cati/groups(${groupId})`, { body: { Name: 'Late shift' }, key: clerk })).status).toBe(200);
  for (let i = 0; i < 120; i++) await ui.server.json('POST', '/cati/blacklist', { body: { TelephoneNumber: String(5550000 + i) } });
  page = await ui.open('settings');
  await page.getByRole('heading', { name: 'Activity' }).waitFor();
});
afterAll(() => ui?.close());

const section = () => page.getByRole('region', { name: 'Activity' });
const table = () => section().getByRole('table', { name: 'Activity' });
/**
 * Opens the Activity filtered as a bookmark would (the address's query sets the filters and reloads). When the
 * address changes, the rows are those of its own answer: the previous filter's rows may be as many.
 */
async function showAddress(query: string, rows: number, atLeast = false) {
  const target = `#/settings?${query}`;
  const changes = await page.evaluate((t) => window.location.hash !== t, target);
  const answered = changes ? page.waitForResponse((r) => r.url().includes('/admin/audit?') && query.split('&').every((part) => r.url().includes(part))) : undefined;
  await page.evaluate((t) => (window.location.hash = t), target);
  await answered;
  await expect.poll(() => section().getByRole('status').filter({ hasText: 'Loading the activity' }).count()).toBe(0);
  if (atLeast) await expect.poll(() => table().getByRole('row').count()).toBeGreaterThanOrEqual(rows + 1);
  else await expect.poll(() => table().getByRole('row').count()).toBe(rows + 1);
}
const CLERK_GROUPS = 'actor=night%20clerk&entity=groups';

describe('Settings → Activity in Chromium', () => {
  it('lists the newest 100 changes first, and "Load more" adds the older ones', async () => {
    await expect.poll(() => table().getByRole('row').count()).toBe(101); // header + one page
    // This window's sign-in (entity `sessions`) is hidden unless asked for (docs/people.md#users).
    expect(await table().getByRole('row').nth(1).textContent()).toContain('TelephoneNumber: 5550119');
    await section().getByLabel('Show sign-ins').check();
    await expect.poll(() => table().getByRole('row').nth(1).textContent()).toMatch(/UI session \d+login/);
    await section().getByLabel('Show sign-ins').uncheck();
    await expect.poll(() => table().getByRole('row').nth(1).textContent()).toContain('TelephoneNumber: 5550119');
    await section().getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => table().getByRole('row').count()).toBeGreaterThan(101);
    await expect.poll(() => section().getByRole('button', { name: 'Load more' }).count()).toBe(0);
  });

  it('filters by who and what (kept in the address) and shows a change as before → after', async () => {
    const filters = section().getByRole('form', { name: 'Activity filters' });
    await filters.getByLabel('Who').fill('night clerk');
    await filters.getByLabel('What').selectOption('groups');
    await filters.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => table().getByRole('row').count()).toBe(3);
    const updated = table().getByRole('row', { name: /updated/ });
    expect(await updated.textContent()).toContain('Name: Early shift → Late shift');
    expect(await updated.textContent()).toContain('night clerk');
    await expect.poll(() => page.evaluate(() => window.location.hash)).toMatch(/^#\/settings\?.*actor=night%20clerk.*entity=groups/);

    await page.reload(); // the filters come back from the address
    await expect.poll(() => table().getByRole('row').count()).toBe(3);
    expect(await section().getByLabel('Who').inputValue()).toBe('night clerk');
  });

  it('filters by when: From (inclusive) and To (exclusive) in local time', async () => {
    await showAddress(CLERK_GROUPS, 2);
    const filters = section().getByRole('form', { name: 'Activity filters' });
    await filters.getByLabel('From').fill('2099-01-01T00:00');
    await filters.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => table().textContent()).toContain('No activity matches these filters.');
    await filters.getByLabel('From').fill('');
    await filters.getByLabel('To (exclusive)').fill('2099-01-01T00:00');
    await filters.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => table().getByRole('row').count()).toBe(3);
    await expect.poll(() => page.evaluate(() => window.location.hash)).toContain('to=2099-01-01T00%3A00');
  });

  it('sorts the loaded rows by a column from the keyboard (newest first by default)', async () => {
    await showAddress(CLERK_GROUPS, 2);
    const actions = () => table().locator('tbody tr td:nth-child(3)').allTextContents();
    await expect.poll(actions).toEqual(['updated', 'created']);
    await table().getByRole('button', { name: 'Action' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(actions).toEqual(['created', 'updated']);
    expect(await table().getByRole('columnheader', { name: 'Action' }).getAttribute('aria-sort')).toBe('ascending');
  });

  it('exports the filtered activity as the table shows it, then the ids and the changes as JSON', async () => {
    await showAddress(CLERK_GROUPS, 2);
    const [download] = await Promise.all([page.waitForEvent('download'), section().getByRole('button', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('activity-all_now.csv');
    const text = await readFile((await download.path())!, 'utf8');
    expect(text.startsWith('\uFEFF')).toBe(true);
    const rows = parse(text.slice(1), { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0]!)).toEqual(['When (UTC)', 'Who', 'Action', 'What', 'Which', 'Changes', 'Key id', 'Person id', 'Entity id', 'Changes (JSON)']);
    expect(rows.map((r) => [r.Who, r.Action, r.What, r.Which, r.Changes, r['Entity id']])).toEqual([
      ['night clerk', 'updated', 'groups', `Late shift (${groupId})`, 'Name: Early shift → Late shift', String(groupId)],
      ['night clerk', 'created', 'groups', `Late shift (${groupId})`, expect.stringContaining('Name: Early shift'), String(groupId)],
    ]);
    expect(JSON.parse(rows[0]!['Changes (JSON)']!)).toEqual({ Name: ['Early shift', 'Late shift'] });
  });

  it('names what changed: the interviewer beside its id, and the groups and survey ids in Changes (docs/audit.md#names)', async () => {
    // Names of this attempt's own (a retry under CI finds the first attempt's rows too, newest first).
    const n = 700 + Math.floor(Math.random() * 9000);
    const amsterdam = (await ui.server.json('POST', '/cati/groups', { body: { Name: `Amsterdam ${n}` } })).body.GroupId;
    const nights = (await ui.server.json('POST', '/cati/groups', { body: { Name: `Nights ${n}` } })).body.GroupId;
    expect((await ui.server.json('POST', '/cati/surveys', { body: { SurveyId: `p${n}`, SurveyName: 'Energy panel', SampleSize: 10, State: 'Open' } })).status).toBe(201);
    const anna = (await ui.server.json('POST', '/cati/interviewerproperties', { body: { Name: `anna.v${n}`, DisplayName: 'Anna Visser', ParentGroups: [amsterdam] } })).body.InterviewerId;
    expect((await ui.server.json('PATCH', `/cati/interviewerproperties(${anna})`, { body: { ParentGroups: [amsterdam, nights] } })).status).toBeLessThan(300);
    expect((await ui.server.json('GET', `/cati/interviewers(${anna})/Controller.AssignOnSurvey(surveyId='p${n}')`)).status).toBe(200);

    await showAddress('entity=interviewers', 2, true);
    const updated = table().getByRole('row', { name: /updated/ }).first();
    expect(await updated.textContent()).toContain(`Anna Visser (${anna})`);
    expect(await updated.textContent()).toContain(`ParentGroups: Amsterdam ${n} (${amsterdam}) → Amsterdam ${n} (${amsterdam}), Nights ${n} (${nights})`);
    expect(await updated.textContent()).not.toContain('[');

    await showAddress('entity=assignments', 1, true);
    const assigned = table().getByRole('row').nth(1);
    expect(await assigned.textContent()).toContain(`Anna Visser (interviewers(${anna}))`);
    expect(await assigned.textContent()).toContain(`SurveyId: Energy panel (p${n})`);
  });

  it('shows a change made while the screen was away, when it is shown again', async () => {
    await page.evaluate(() => (window.location.hash = '#/settings?entity=blacklist'));
    await expect.poll(() => table().getByRole('row').nth(1).textContent()).toContain('TelephoneNumber: 5550119');
    const nav = page.getByRole('navigation', { name: 'Screens' });
    await nav.getByRole('link', { name: 'Groups', exact: true }).click();
    await page.getByRole('heading', { name: 'Groups', level: 1 }).waitFor();
    expect((await ui.server.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '5559999' } })).status).toBe(201);
    await nav.getByRole('link', { name: 'Settings', exact: true }).click();
    await expect.poll(() => table().getByRole('row').nth(1).textContent()).toContain('TelephoneNumber: 5559999');
  });

  it('has no axe violations', async () => {
    // The Activity with a full page of rows and "Load more", whatever screen or filters a test before left.
    await showAddress('entity=blacklist', 100);
    expect(await axeViolations(page)).toEqual([]);
  });
});
