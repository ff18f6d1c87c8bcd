/**
 * Screens that fit the person (docs/screens.md#roles): an administrator, a supervisor and a viewer each walk every
 * screen (and open a row's detail where a screen has one); the walk fails on any 401/403 in the network log, on
 * any error notice, and, for the viewer, on any enabled control that would change something. A role changed
 * while a screen is open (an administrator demoted to viewer) takes the controls away at the next request,
 * without an error notice.
 */
import type { Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, type ExpectStatic } from 'vitest';
import { startUi, type UiHarness } from './ui-harness.ts';

const PASSWORD = 'role walk password 1357';
let ui: UiHarness;
const api = () => ui.server.json;

/** Every screen in the navigation, with the heading it shows, and the button that opens a row's detail there. */
const SCREENS: { path: string; heading: RegExp; open?: string; shows?: string }[] = [
  { path: 'floor', heading: /^Floor|on the floor/i },
  { path: 'surveys-today', heading: /Surveys today/i },
  { path: 'productivity', heading: /Productivity/i },
  { path: 'history', heading: /History/i },
  { path: 'history?tab=breaks', heading: /History/i },
  { path: 'history?tab=sessions', heading: /History/i },
  { path: 'interviewers', heading: /^Interviewers$/ },
  { path: 'groups', heading: /^Groups$/, open: 'Open Evening team' },
  { path: 'surveys', heading: /^Surveys$/, open: 'Open Health 2026' },
  { path: 'blacklist', heading: /Telephone blacklist/, shows: '31205550198' },
  { path: 'optout', heading: /Opt-out/ },
  { path: 'settings', heading: /^Settings$/ },
  { path: 'wallboard', heading: /./ },
];

/** Names of controls that change something: a viewer must see none of them enabled. */
const WRITE = /^(Assign|Unassign|Edit|Save|Lock|Unlock|Import|Add|Delete|Remove|Create|New|Upload|Revoke|Undo)\b/;

/** Signs `name` in on a fresh page and records every 401/403 answer it gets. */
async function signedIn(name: string): Promise<{ page: Page; refused: string[] }> {
  const context = await ui.browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const refused: string[] = [];
  page.on('response', (r: Response) => {
    if (r.status() === 401 || r.status() === 403) refused.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`);
  });
  await page.goto(`${ui.server.url}/#/floor`);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Screens' }).waitFor();
  return { page, refused };
}

/** The error notices on the page (the notice area's alerts). */
const errorNotices = (page: Page) => page.locator('.notices .notice.error').allTextContents();

/** Enabled controls on the page whose name says they change something. */
async function enabledWriteControls(page: Page): Promise<string[]> {
  return page.evaluate((source) => {
    const re = new RegExp(source);
    const found: string[] = [];
    for (const el of Array.from(document.querySelectorAll<HTMLButtonElement | HTMLInputElement>('main button, main input[type=submit], main input[type=file]'))) {
      const name = (el.getAttribute('aria-label') ?? el.textContent ?? el.getAttribute('value') ?? '').trim();
      const visible = el.offsetParent !== null || el.getAttribute('type') === 'file';
      if (visible && !el.disabled && re.test(name)) found.push(name);
    }
    return found;
  }, WRITE.source);
}

/** Waits until no region on the page is busy loading (the /events stream keeps the network from ever idling); `expect` is the test's. */
async function settle(page: Page, expect: ExpectStatic): Promise<void> {
  await page.waitForTimeout(400);
  await expect.poll(() => page.locator('[aria-busy="true"]').count(), { timeout: 10_000 }).toBe(0);
  await page.waitForTimeout(300);
}

/** Visits every screen; answers the write controls offered on each (screen → names). */
async function walk(page: Page, expect: ExpectStatic): Promise<Record<string, string[]>> {
  const offered: Record<string, string[]> = {};
  for (const screen of SCREENS) {
    await page.evaluate((s) => (window.location.hash = `#/${s}`), screen.path);
    if (screen.path !== 'wallboard') await page.getByRole('heading', { name: screen.heading, level: 1 }).first().waitFor();
    await settle(page, expect);
    if (screen.shows) await page.getByText(screen.shows).first().waitFor();
    if (screen.open) {
      const open = page.getByRole('button', { name: screen.open }).first();
      await open.waitFor({ timeout: 10_000 });
      await open.click();
      await settle(page, expect);
    }
    offered[screen.path] = await enabledWriteControls(page);
  }
  return offered;
}

beforeAll(async () => {
  ui = await startUi();
  for (const [Name, Role, DisplayName] of [['ada', 'administrator', 'Ada Admin'], ['sam', 'supervisor', 'Sam Super'], ['vic', 'viewer', 'Vic Viewer'], ['dora', 'administrator', 'Dora Demoted']]) {
    expect((await api()('POST', '/admin/users', { body: { Name, Role, DisplayName, Password: PASSWORD } })).status).toBe(201);
  }
  await api()('POST', '/cati/surveys', { body: { SurveyId: 'p2001', SurveyName: 'Health 2026', SampleSize: 500, State: 'Open' } });
  const team = (await api()('POST', '/cati/groups', { body: { Name: 'Evening team' } })).body.GroupId;
  const anna = (await api()('POST', '/cati/interviewerproperties', { body: { Name: 'anna', DisplayName: 'Anna Berg', Password: 'pass-1234' } })).body.InterviewerId;
  await api()('GET', `/cati/groups(${team})/Controller.AssignOnSurvey(surveyId='p2001',callCenterId=1)`);
  await api()('GET', `/cati/interviewers(${anna})/Controller.AssignOnSurvey(surveyId='p2001')`);
  expect((await api()('POST', '/cati/blacklist', { body: { TelephoneNumber: '31205550198', Type: 'Equal', Comment: 'asked twice' } })).status).toBe(201);
  const dialer = (await ui.server.server.ctx.keys.create('dialer', ['cati_integrate'])).key;
  await api()('POST', '/cati/interviewersessionhistory', { body: { InterviewerId: anna, CallCenterId: 1, LoginTime: new Date(Date.now() - 600_000).toISOString() }, key: dialer });
});
afterAll(() => ui?.close());

// The three walks at once, each in its own browser context: most of a walk is waiting for screens to settle.
describe.concurrent('every screen, as each role', () => {
  for (const name of ['ada', 'sam', 'vic']) {
    it(`${name}: no request refused, no error notice`, async ({ expect }) => {
      const { page, refused } = await signedIn(name);
      const offered = await walk(page, expect);
      expect(refused).toEqual([]);
      expect(await errorNotices(page)).toEqual([]);
      if (name === 'vic') expect(Object.fromEntries(Object.entries(offered).filter(([, v]) => v.length > 0))).toEqual({});
      else expect(offered['groups']!.length).toBeGreaterThan(0);
      await page.context().close();
    }, 120_000);
  }
});

describe('a role changed while a screen is open', () => {
  it('an administrator demoted to viewer loses the controls at the next request, with no error notice', async () => {
    const { page } = await signedIn('dora');
    await page.evaluate(() => (window.location.hash = '#/blacklist'));
    await page.getByRole('heading', { name: 'Telephone blacklist', level: 1 }).waitFor();
    await page.getByRole('form', { name: 'Add a number' }).waitFor();
    const dora = (await api()('GET', '/admin/users')).body.value.find((u: { Name: string }) => u.Name === 'dora');
    expect((await api()('PATCH', `/admin/users/${dora.UserId}`, { body: { Role: 'viewer' } })).status).toBe(200);
    // The person tries what the role no longer allows: the server refuses, the screen follows the new role.
    const form = page.getByRole('form', { name: 'Add a number' });
    await form.getByLabel(/number/i).first().fill('0205550199');
    await form.getByRole('button', { name: /^Add/ }).click();
    await expect.poll(() => page.getByRole('form', { name: 'Add a number' }).count(), { timeout: 10_000 }).toBe(0);
    expect(await errorNotices(page)).toEqual([]);
    // Going to another screen: no write control is offered there either.
    await page.evaluate(() => (window.location.hash = '#/groups'));
    await page.getByRole('heading', { name: 'Groups', level: 1 }).waitFor();
    await settle(page, expect);
    expect(await enabledWriteControls(page)).toEqual([]);
    await page.context().close();
  }, 60_000);
});

describe('blacklist search and the phone region, as a viewer', () => {
  it('finds a number however it is typed, and shows the region without a way to change it', async () => {
    expect((await api()('PATCH', '/admin/settings', { body: { PhoneRegion: 'NL' } })).status).toBe(200);
    const { page, refused } = await signedIn('vic');
    await page.evaluate(() => (window.location.hash = '#/blacklist'));
    await page.getByRole('heading', { name: 'Telephone blacklist', level: 1 }).waitFor();
    const hint = page.getByTestId('phone-region-hint').first();
    await expect.poll(() => hint.textContent()).toMatch(/\(NL\)/);
    expect(await hint.getByRole('link').count()).toBe(0);
    const search = page.getByRole('search');
    await search.getByLabel(/Search number or comment/).fill('020 555 0198');
    await search.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByRole('table').first().textContent()).toContain('31205550198');
    await search.getByLabel(/Search number or comment/).fill('ASKED');
    await search.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByRole('table').first().textContent()).toContain('31205550198');
    expect(refused).toEqual([]);
    await page.context().close();
  }, 60_000);
});
