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

/**
 * Stores the unsubscribe page settings through the API (as a script would), then loads the page again so its form
 * shows them (a form loaded before would save its older values back), waiting until it does.
 */
async function seedTexts(settings: { companyName?: string; resultPageText?: string }) {
  const r = await ui.server.json('PUT', '/optout/settings', { body: settings });
  expect(r.status).toBe(200);
  await page.reload();
  const form = page.getByRole('region', { name: 'Unsubscribe pages' });
  if (settings.companyName !== undefined) await expect.poll(() => form.getByLabel('Company name').inputValue()).toBe(settings.companyName);
  if (settings.resultPageText !== undefined) await expect.poll(() => form.getByLabel('Result page text (English)').inputValue()).toBe(settings.resultPageText);
}

/** The names of the API keys the server lists. */
const keyNames = async (): Promise<string[]> => (await ui.server.json('GET', '/admin/keys')).body.map((k: { name: string }) => k.name);

describe('Settings screen in Chromium', () => {
  it('shows the server URL and explains headless mode', async () => {
    await expect.poll(() => page.getByTestId('server-url').textContent()).toBe(ui.server.url);
    expect(await page.getByText('Headless mode: host, port').count()).toBe(1);
    // The desktop-only sections: no connection to other servers; backups explained for the command line.
    expect(await page.getByRole('region', { name: 'Connection' }).count()).toBe(0);
    expect(await page.getByTestId('backups-headless').textContent()).toMatch(/npm run backup -- --data-dir D.*npm run restore -- --data-dir D --from FILE/s);
    expect(await page.getByRole('button', { name: 'Back up now' }).count()).toBe(0);
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

  it('edits the page texts per language with a preview, and the page answers in that language', async () => {
    await seedTexts({ resultPageText: 'We shall write no more.' });
    const form = page.getByRole('region', { name: 'Unsubscribe pages' });
    await expect.poll(() => form.getByLabel('Company name').isEnabled()).toBe(true);
    await form.getByRole('tab', { name: 'Nederlands' }).click();
    await form.getByLabel('Result page text (Nederlands)').fill('U hoort niet meer van ons.');
    await expect.poll(() => form.getByRole('figure').textContent()).toContain('U hoort niet meer van ons.');
    await form.getByLabel('Language when no other fits').selectOption('nl');
    await form.getByRole('button', { name: 'Save texts' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Unsubscribe page texts saved.');
    const { body } = await ui.server.json('GET', '/optout/settings');
    expect(body).toMatchObject({ defaultLanguage: 'nl', resultPageText: 'We shall write no more.', texts: { nl: { resultPageText: 'U hoort niet meer van ons.' } } });
    // English stays as it was; the page without a key answers in the default language now.
    const res = await fetch(`${ui.server.url}/unsubscribe`);
    expect(res.headers.get('content-language')).toBe('nl');
  });

  it('shows a validation error from the server and keeps the stored texts', async () => {
    await seedTexts({ companyName: 'Bolt Surveys' });
    const form = page.getByRole('region', { name: 'Unsubscribe pages' });
    await expect.poll(() => form.getByLabel('Company name').isEnabled()).toBe(true);
    await form.getByLabel('Company name').fill('x'.repeat(5000));
    await form.getByRole('button', { name: 'Save texts' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/HTTP 400/);
    const { body } = await ui.server.json('GET', '/optout/settings');
    expect(body.companyName).toBe('Bolt Surveys');
  });

  it('creates an API key, shows it once with a copy button, lists it, and revokes it so the API refuses it', async () => {
    const section = page.getByRole('region', { name: 'API keys' });
    const form = section.getByRole('form', { name: 'Create a key' });
    await form.getByLabel('Name').fill('e2e dialer');
    await form.getByRole('checkbox', { name: /cati_administrate/ }).check();
    await form.getByRole('button', { name: 'Create key' }).click();

    const shown = section.getByLabel('New API key');
    await expect.poll(() => shown.count()).toBe(1);
    const key = await shown.inputValue();
    expect(key).toMatch(/^cati_[A-Za-z0-9_-]{32}$/);
    expect(await section.getByText('Store it now').count()).toBe(1);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ui.server.url });
    await section.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => section.getByRole('status').textContent()).toContain('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

    // The key shown in the UI works against the API at once.
    expect((await ui.server.json('GET', '/cati/blacklist', { key })).status).toBe(200);
    const row = section.getByRole('row', { name: /e2e dialer/ });
    await expect.poll(() => row.textContent()).toContain(`${key.slice(0, 9)}…`);
    expect(await row.textContent()).toContain('Active');
    expect(await row.textContent()).toContain('cati_administrate');

    // Shown once: gone after "I have stored it", and not on the page after a reload.
    await section.getByRole('button', { name: 'I have stored it' }).click();
    await expect.poll(() => shown.count()).toBe(0);
    await page.reload();
    await expect.poll(() => row.count()).toBe(1);
    expect(await page.content()).not.toContain(key);

    await row.getByRole('button', { name: 'Revoke e2e dialer' }).click();
    await row.getByRole('button', { name: 'Confirm revoke e2e dialer' }).click();
    await expect.poll(() => row.textContent()).toContain('Revoked');
    expect(await row.getByRole('button', { name: /Revoke/ }).count()).toBe(0);
    const refused = await ui.server.json('GET', '/cati/blacklist', { key });
    expect(refused.status).toBe(401);
    const { body } = await ui.server.json('GET', '/admin/keys');
    expect(body.filter((k: { name: string }) => k.name === 'e2e dialer')).toEqual([expect.objectContaining({ name: 'e2e dialer', revokedAt: expect.any(String) })]);
  });

  it('creates a project-limited key, and shows the server\'s 400 for a malformed project id without creating one', async () => {
    await page.reload(); // a form of its own: nothing ticked or typed before
    const keysBefore = await keyNames();
    const section = page.getByRole('region', { name: 'API keys' });
    const form = section.getByRole('form', { name: 'Create a key' });
    await form.getByLabel('Name').fill('mailer');
    await form.getByRole('checkbox', { name: /optout_administrate/ }).check();
    await form.getByLabel(/Limit opt-out administration/).fill('p1001, 1002');
    await form.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => page.getByRole('alert').filter({ hasText: "Project id '1002'" }).textContent()).toMatch(/HTTP 400/);
    expect(await keyNames()).toEqual(keysBefore);

    await form.getByLabel(/Limit opt-out administration/).fill('p1001, p1002');
    await form.getByRole('button', { name: 'Create key' }).click();
    const row = section.getByRole('row', { name: /mailer/ });
    await expect.poll(() => row.textContent()).toContain('p1001, p1002');
    const key = await section.getByLabel('New API key').inputValue();
    const created = (await ui.server.json('GET', '/admin/keys')).body.find((k: { name: string }) => k.name === 'mailer');
    expect(created).toMatchObject({ permissions: ['optout_administrate'], projects: ['p1001', 'p1002'], revokedAt: null });
    expect((await ui.server.json('POST', '/optout/lists', { key, body: { projectId: 'p1001' } })).status).toBe(200);
    expect((await ui.server.json('POST', '/optout/lists', { key, body: { projectId: 'p9' } })).status).toBe(403);
    expect((await ui.server.json('GET', '/cati/blacklist', { key })).status).toBe(403);
    // The form is empty again for the next key.
    expect(await form.getByLabel('Name').inputValue()).toBe('');
  });

  it('shows the sign-in page when the page has no key', async () => {
    const context = await ui.browser.newContext();
    const bare = await context.newPage();
    await bare.goto(ui.server.url + '/');
    await expect.poll(() => bare.getByRole('heading', { name: 'Sign in' }).count()).toBe(1);
    await context.close();
  });
});
