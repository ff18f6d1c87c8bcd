import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './axe.ts';
import { startUi, type UiHarness } from './ui-harness.ts';

let ui: UiHarness;
let page: Page;
const ids: Record<string, number> = {};

beforeAll(async () => {
  ui = await startUi();
  const api = ui.server.json;
  for (const [name, display] of [['cara', 'Cara Diaz'], ['abe', 'Abe Zorn'], ['bea', 'Bea Young']] as const) {
    ids[name] = (await api('POST', '/cati/interviewerproperties', { body: { Name: name, DisplayName: display, Password: 'secret-12' } })).body.InterviewerId;
  }
  await api('GET', `/cati/interviewers(${ids.bea})/Controller.Lock()`);
  const login = new Date(Date.now() - 3_600_000).toISOString();
  await api('POST', '/cati/interviewersessionhistory', { body: { value: [{ InterviewerId: ids.cara, LoginTime: login }] } });
  for (const [id, name, size] of [['p5001', 'Zeta', 10], ['p5002', 'Alpha', 300], ['p5003', 'Mid', 50]] as const) {
    await api('POST', '/cati/surveys', { body: { SurveyId: id, SurveyName: name, SampleSize: size, State: 'Open' } });
  }
  page = await ui.open('interviewers');
  await page.getByRole('heading', { name: 'Interviewers', level: 1 }).waitFor();
});
afterAll(() => ui?.close());

const column = (n: number) => page.getByRole('table').first().locator(`tbody tr td:nth-child(${n})`).allTextContents();

describe('Sortable tables with their filters in the address', () => {
  it('interviewers: sort by display name, filter by state (logged in, locked), LockedDate shown', async () => {
    await expect.poll(() => column(2)).toEqual(['abe', 'bea', 'cara']);
    await page.getByRole('columnheader', { name: 'Display name' }).getByRole('button').click();
    await page.getByRole('columnheader', { name: 'Display name' }).getByRole('button').click();
    await expect.poll(() => column(3)).toEqual(['Cara Diaz', 'Bea Young', 'Abe Zorn']);
    expect(await page.getByRole('columnheader', { name: 'Display name' }).getAttribute('aria-sort')).toBe('descending');

    const search = page.getByRole('search');
    await search.getByLabel('State').selectOption('loggedIn');
    await search.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => column(2)).toEqual(['cara']);
    expect(await column(7)).toEqual(['Yes']);
    await search.getByLabel('State').selectOption('locked');
    await search.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => column(2)).toEqual(['bea']);
    expect((await column(6))[0]).toMatch(/\d/);
    expect(page.url()).toMatch(/#\/interviewers\?state=locked&orderby=DisplayName%20desc$/);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('a bookmarked address opens the screen with its filter and sort', async () => {
    await page.goto(`${ui.server.url}/#/interviewers?state=loggedOut&orderby=Name%20desc`);
    await page.reload();
    await expect.poll(() => column(2)).toEqual(['bea', 'abe']);
    expect(await page.getByRole('search').getByLabel('State').inputValue()).toBe('loggedOut');
    expect(await page.getByRole('columnheader', { name: 'Login' }).getAttribute('aria-sort')).toBe('descending');
  });

  it('surveys: sorts by sample size and keeps it across a reload', async () => {
    await page.evaluate(() => (window.location.hash = '#/surveys'));
    await expect.poll(() => column(2)).toEqual(['Alpha', 'Mid', 'Zeta']);
    await page.getByRole('columnheader', { name: 'Sample size' }).getByRole('button').click();
    await expect.poll(() => column(3)).toEqual(['10', '50', '300']);
    await page.reload();
    await expect.poll(() => column(3)).toEqual(['10', '50', '300']);
    expect(page.url()).toContain('#/surveys?orderby=SampleSize');
  });

  it('groups: sorts by id', async () => {
    await ui.server.json('POST', '/cati/groups', { body: { Name: 'AAA late' } });
    await page.evaluate(() => (window.location.hash = '#/groups'));
    await expect.poll(() => column(2)).toEqual(['AAA late', 'CATI Interviewers']);
    await page.getByRole('columnheader', { name: 'Id' }).getByRole('button').click();
    await expect.poll(() => column(2)).toEqual(['CATI Interviewers', 'AAA late']);
  });
});
