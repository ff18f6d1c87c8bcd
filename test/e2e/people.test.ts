/**
 * People in the browser (docs/people.md#users): the sign-in page when the tab has no session, the person and Sign out in
 * the header, back to the same screen after a session ends, a viewer's floor without Lock, and Settings → People.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './axe.ts';
import { startUi, type UiHarness } from './ui-harness.ts';

const PASSWORD = 'browser password 2468';
let ui: UiHarness;

const api = () => ui.server.json;
async function signedIn(name: string, hash = ''): Promise<Page> {
  const context = await ui.browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  await page.goto(`${ui.server.url}/${hash}`);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Screens' }).waitFor();
  return page;
}

beforeAll(async () => {
  ui = await startUi();
  for (const [Name, Role, DisplayName] of [['ada', 'administrator', 'Ada Admin'], ['sam', 'supervisor', 'Sam Super'], ['vic', 'viewer', 'Vic Viewer']]) {
    expect((await api()('POST', '/admin/users', { body: { Name, Role, DisplayName, Password: PASSWORD } })).status).toBe(201);
  }
  // One interviewer logged in, so the floor has a row (and, for those who may, a Lock button).
  const dialer = (await ui.server.server.ctx.keys.create('dialer', ['cati_integrate'])).key;
  const id = (await api()('POST', '/cati/interviewerproperties', { body: { Name: 'anna', DisplayName: 'Anna Berg', Password: 'pass-1234' } })).body.InterviewerId;
  const session = await api()('POST', '/cati/interviewersessionhistory', { body: { InterviewerId: id, CallCenterId: 1, LoginTime: new Date(Date.now() - 600_000).toISOString() }, key: dialer });
  expect(session.status, JSON.stringify(session.body)).toBe(201);
});
afterAll(() => ui?.close());

describe('signing in', () => {
  it('shows the sign-in page without a session, refuses a wrong password, then the person and Sign out in the header', async () => {
    const context = await ui.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${ui.server.url}/#/blacklist`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Screens' }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel('Name').fill('sam');
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/name or password is wrong/);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Telephone blacklist' }).waitFor(); // the screen in the address
    await expect.poll(() => page.locator('header .user-menu').textContent()).toMatch(/Sam Super/);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('cati.session'))).toBeNull();
    await context.close();
  });

  it('after a session ends, signs in again on the page the person was on', async () => {
    const page = await signedIn('sam', '#/interviewers');
    await page.getByRole('heading', { name: 'Interviewers' }).first().waitFor();
    const key = (await page.evaluate(() => sessionStorage.getItem('cati.session')))!;
    await ui.server.json('POST', '/auth/logout', { key }); // ended elsewhere (as expiry or a revocation would)
    await page.evaluate(() => (window.location.hash = '#/groups'));
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByText(/Your session has ended/).waitFor();
    await page.getByLabel('Name').fill('sam');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Groups' }).first().waitFor();
    expect(page.url()).toMatch(/#\/groups$/);
    await page.context().close();
  });
});

describe("a viewer's screens", () => {
  it('the floor shows the interviewer but offers no Lock; a supervisor gets Lock', async () => {
    const viewer = await signedIn('vic', '#/floor');
    const table = viewer.getByRole('table', { name: 'Interviewers on the floor' });
    await table.getByRole('row').filter({ hasText: 'Anna Berg' }).waitFor();
    expect(await viewer.getByRole('button', { name: /^(Lock|Unlock) / }).count()).toBe(0);
    expect(await axeViolations(viewer)).toEqual([]);
    await viewer.evaluate(() => (window.location.hash = '#/blacklist'));
    await viewer.getByRole('heading', { name: 'Telephone blacklist' }).waitFor();
    expect(await viewer.getByRole('form', { name: 'Add a number' }).count()).toBe(0);
    expect(await viewer.getByRole('button', { name: 'Import' }).count()).toBe(0);
    await viewer.evaluate(() => (window.location.hash = '#/settings'));
    await viewer.getByRole('heading', { name: 'Settings' }).waitFor();
    expect(await viewer.getByRole('heading', { name: 'People' }).count()).toBe(0);
    await viewer.evaluate(() => (window.location.hash = '#/groups'));
    await viewer.getByRole('heading', { name: 'Groups', level: 1 }).waitFor();
    expect(await viewer.getByRole('heading', { name: 'New group' }).count()).toBe(0);
    await viewer.context().close();

    const supervisor = await signedIn('sam', '#/floor');
    await supervisor.getByRole('button', { name: 'Lock anna' }).waitFor();
    await supervisor.context().close();
  });
});

describe('Settings → People', () => {
  it('an administrator adds a person, changes the role, locks and resets a password', async () => {
    const page = await signedIn('ada', '#/settings');
    const people = page.locator('section[aria-labelledby="st-people"]');
    await people.getByRole('cell', { name: 'vic', exact: true }).waitFor();
    const form = page.getByRole('form', { name: 'Add a person' });
    await form.getByLabel('Name (letters').fill('nina');
    await form.getByLabel('Display name').fill('Nina New');
    await form.getByLabel('Role').selectOption('viewer');
    await form.getByLabel('Password (at least 12').fill(PASSWORD);
    await form.getByRole('button', { name: 'Add person' }).click();
    await people.getByRole('cell', { name: 'Nina New' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);

    await page.getByLabel('Role of nina').selectOption('supervisor');
    await expect.poll(async () => (await api()('GET', '/admin/users')).body.value.find((u: { Name: string }) => u.Name === 'nina')?.Role).toBe('supervisor');
    const ninaKey = (await api()('POST', '/auth/login', { body: { Name: 'nina', Password: PASSWORD }, key: null })).body.Key;
    // Lock and Unlock ask first, naming the person (docs/screens.md#truth).
    await page.getByRole('button', { name: 'Lock nina', exact: true }).click();
    await page.getByRole('button', { name: 'Lock Nina New (nina)', exact: true }).click();
    await page.getByRole('button', { name: 'Unlock nina', exact: true }).waitFor();
    expect((await api()('GET', '/auth/me', { key: ninaKey })).status).toBe(401);
    await page.getByRole('button', { name: 'Unlock nina', exact: true }).click();
    await page.getByRole('button', { name: 'Unlock Nina New (nina)', exact: true }).click();
    await page.getByRole('button', { name: 'Lock nina', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Reset password of nina' }).click();
    await page.getByLabel('New password for nina').fill('a brand new password');
    await page.getByRole('button', { name: 'Set password', exact: true }).click();
    await expect.poll(async () => (await api()('POST', '/auth/login', { body: { Name: 'nina', Password: 'a brand new password' }, key: null })).status).toBe(200);
    await page.context().close();
  });
});
