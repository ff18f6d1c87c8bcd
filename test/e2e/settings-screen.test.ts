import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUi, type UiHarness } from './ui-harness.ts';

let ui: UiHarness;
let page: Page;

beforeAll(async () => {
  ui = await startUi();
  page = await ui.open('settings');
  await page.getByRole('heading', { name: 'Settings' }).waitFor();
});
afterAll(() => ui?.close());

describe('Settings screen in Chromium', () => {
  it('shows the server URL and explains headless mode', async () => {
    await expect.poll(() => page.getByTestId('server-url').textContent()).toBe(ui.server.url);
    expect(await page.getByText('Headless mode').count()).toBe(1);
  });

  it('saves the unsubscribe page texts, and they survive a reload of the page', async () => {
    const form = page.getByRole('region', { name: 'Unsubscribe pages' });
    await expect.poll(() => form.getByLabel('Company name').isEnabled()).toBe(true);
    await form.getByLabel('Company name').fill('Acme Research');
    await form.getByLabel('Result page text').fill('You will not hear from us again.');
    await form.getByRole('button', { name: 'Save texts' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Unsubscribe page texts saved.');

    const { body } = await ui.server.json('GET', '/optout/settings');
    expect(body).toMatchObject({ companyName: 'Acme Research', resultPageText: 'You will not hear from us again.' });

    await page.reload(); // the key now comes from this tab's session storage, not the address
    await expect.poll(() => form.getByLabel('Company name').inputValue()).toBe('Acme Research');
  });

  it('shows a validation error from the server and keeps the stored texts', async () => {
    const form = page.getByRole('region', { name: 'Unsubscribe pages' });
    await expect.poll(() => form.getByLabel('Company name').isEnabled()).toBe(true);
    await form.getByLabel('Company name').fill('x'.repeat(5000));
    await form.getByRole('button', { name: 'Save texts' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/HTTP 400/);
    const { body } = await ui.server.json('GET', '/optout/settings');
    expect(body.companyName).toBe('Acme Research');
  });

  it('asks for a fresh link when the page has no key', async () => {
    const context = await ui.browser.newContext();
    const bare = await context.newPage();
    await bare.goto(ui.server.url + '/');
    await expect.poll(() => bare.getByRole('heading', { name: 'No session key' }).count()).toBe(1);
    await context.close();
  });
});
