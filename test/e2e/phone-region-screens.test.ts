import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUi, type UiHarness } from './ui-harness.ts';

// docs/cati-api.md#phone-region screens: Settings → Phone numbers, the region beside the blacklist's inputs, the read-only key, the Excel hint.
let ui: UiHarness;
let page: Page;

beforeAll(async () => {
  ui = await startUi();
  for (const n of ['+31 (0)20 555-0198', '0031 20 555 0198', '020 555 0198']) await ui.server.json('POST', '/cati/blacklist', { body: { TelephoneNumber: n } });
  page = await ui.open('blacklist');
  await page.getByRole('heading', { name: 'Telephone blacklist' }).waitFor();
});
afterAll(() => ui?.close());

describe('the phone region on the screens', () => {
  it('without a region, the blacklist says plainly that numbers are compared digit by digit, and offers to set it', async () => {
    const hints = page.getByTestId('phone-region-hint');
    await expect.poll(() => hints.count()).toBe(3); // add, check, import
    expect(await hints.first().textContent()).toMatch(/No phone region is set: numbers are compared digit by digit/);
    expect(await hints.first().getByRole('link', { name: 'Set the phone region' }).getAttribute('href')).toBe('#/settings');
    const check = page.getByRole('region', { name: 'Check a number' });
    await check.getByLabel('Number').fill('0031205550198');
    await check.getByRole('button', { name: 'Check' }).click();
    await expect.poll(() => page.getByTestId('check-result').textContent()).toMatch(/is blocked .*Compared as 0031205550198/);
  });

  it('Settings → Phone numbers previews examples and what merges, then saves; the blacklist then shows the region', async () => {
    await page.goto(page.url().replace(/#\/.*$/, '#/settings'));
    const section = page.getByRole('region', { name: 'Phone numbers' });
    await section.getByLabel('Country').selectOption('NL');
    await expect.poll(() => section.getByTestId('phone-region-effect').textContent()).toMatch(/3 stored blacklist entries.*0\s+will change, 2\s+will merge/s);
    expect(await section.getByRole('table', { name: 'How numbers will be stored' }).textContent()).toContain('31612345678');
    expect((await ui.server.json('GET', '/admin/settings')).body).toEqual({ PhoneRegion: null }); // a preview writes nothing
    await section.getByRole('button', { name: 'Save phone region' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/Phone region saved: .*\(NL\)\. 0 stored numbers rewritten, 2 duplicates merged\./);
    expect((await ui.server.json('GET', '/admin/settings')).body).toEqual({ PhoneRegion: 'NL' });

    await page.goto(page.url().replace(/#\/.*$/, '#/blacklist'));
    await expect.poll(() => page.getByTestId('phone-region-hint').first().textContent()).toMatch(/Phone region .*\(NL\)/);
  });

  it('a country picked while the saved region is still on its way stays picked', async () => {
    expect((await ui.server.json('PATCH', '/admin/settings', { body: { PhoneRegion: 'DE' } })).status).toBe(200);
    // The screen's read of the saved region is held until the person has picked a country.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = await ui.open('settings', async (context) => {
      await context.route('**/admin/settings', async (route) => {
        if (route.request().method() === 'GET') await held;
        await route.continue();
      });
    });
    const section = slow.getByRole('region', { name: 'Phone numbers' });
    await section.getByLabel('Country').selectOption('BE');
    release();
    await expect.poll(() => section.getByTestId('phone-region-effect').textContent()).toMatch(/stored blacklist entries/);
    expect(await section.getByLabel('Country').inputValue()).toBe('BE');
    await slow.context().close();
  });

  it('the keys screen offers the read-only key and the Excel/Power BI hint names the real /cati/ address and Basic sign-in', async () => {
    await page.goto(page.url().replace(/#\/.*$/, '#/settings'));
    const form = page.getByRole('form', { name: 'Create a key' });
    expect(await form.textContent()).toContain('Read-only: reports, Excel, Power BI');
    await form.getByLabel('Name').fill('power bi');
    await form.locator('input[value="cati_read"]').check();
    await form.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(async () => (await ui.server.json('GET', '/admin/keys')).body.map((k: { name: string; permissions: string[] }) => [k.name, k.permissions])).toContainEqual(['power bi', ['cati_read']]);
    const hint = await page.getByTestId('excel-feed-hint').textContent();
    expect(hint).toContain(`${ui.server.url}/cati/`);
    expect(hint).toMatch(/Basic.*any user name.*cati_read/s);
  });
});
