import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUi, type UiHarness } from './ui-harness.ts';

let ui: UiHarness;
let page: Page;

beforeAll(async () => {
  ui = await startUi();
  page = await ui.open('interviewers');
  await page.getByRole('heading', { name: 'Interviewers', level: 1 }).waitFor();
});
afterAll(() => ui?.close());

const table = () => page.getByRole('table');
const form = () => page.getByRole('region', { name: /New interviewer|Edit / });

async function create(login: string, display: string) {
  await form().getByLabel('Login name').fill(login);
  await form().getByLabel('Display name').fill(display);
  await form().getByLabel('Password').fill('s3cret-pass');
  await form().getByRole('button', { name: 'Create' }).click();
}

describe('Interviewers screen in Chromium', () => {
  it('creates interviewers and lists them', async () => {
    await create('anna', 'Anna Berg');
    await create('ben', 'Ben Cole');
    await expect.poll(() => table().textContent()).toContain('Ben Cole');
    const { body } = await ui.server.json('GET', "/cati/interviewers?$filter=Name eq 'anna'");
    expect(body.value[0]).toMatchObject({ DisplayName: 'Anna Berg', IsLocked: false });
  });

  it('edits an interviewer without touching the password', async () => {
    await page.getByRole('button', { name: 'Edit anna' }).click();
    await form().getByLabel('Display name').fill('Anna Berg-Lund');
    await form().getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => table().textContent()).toContain('Anna Berg-Lund');
  });

  it('locks and unlocks an interviewer', async () => {
    await page.getByRole('button', { name: 'Lock ben' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Unlock ben' }).count()).toBe(1);
    const { body } = await ui.server.json('GET', "/cati/interviewers?$filter=Name eq 'ben'");
    expect(body.value[0].IsLocked).toBe(true);
    await page.getByRole('button', { name: 'Unlock ben' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Lock ben' }).count()).toBe(1);
  });

  it('searches by display name', async () => {
    await page.getByRole('search').getByLabel('Search login or display name').fill('cole');
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => table().textContent()).not.toContain('Anna');
    expect(await table().textContent()).toContain('Ben Cole');
  });

  it('shows the conflict when a login name is taken', async () => {
    await create('anna', 'Another Anna');
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/HTTP 409/);
  });
});
