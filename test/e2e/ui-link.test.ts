import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUi, uiLinkFragment, type UiHarness } from './ui-harness.ts';

let ui: UiHarness;

beforeAll(async () => {
  ui = await startUi();
});
afterAll(() => ui?.close());

async function newPage() {
  const context = await ui.browser.newContext({ viewport: { width: 1280, height: 860 } });
  return context.newPage();
}

describe('The headless UI link in Chromium (single-use token, docs/people.md#ui-sessions)', () => {
  it('opens the UI once; the same link in another tab shows that it was used, with how to get a fresh one', async () => {
    const link = `${ui.server.url}${await uiLinkFragment(ui.server)}`;
    const first = await newPage();
    await first.goto(link);
    await first.getByRole('navigation', { name: 'Screens' }).waitFor();
    expect(first.url()).not.toContain('token=');
    // The start page is the live floor.
    await expect.poll(() => first.getByRole('heading', { name: 'Floor', level: 1 }).count()).toBe(1);
    await first.reload(); // the session key lives in this tab
    await expect.poll(() => first.getByRole('heading', { name: 'Floor', level: 1 }).count()).toBe(1);

    const copied = await newPage();
    await copied.goto(link);
    await copied.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await copied.getByRole('alert').first().textContent()).toMatch(/expired .* or was already used\. Run `npm run keys -- ui-link`/);
    await copied.context().close();
    await first.context().close();
  });

  it('tells the user when the session was revoked', async () => {
    const page = await ui.open('blacklist');
    await page.getByRole('heading', { name: 'Telephone blacklist' }).waitFor();
    const key = await page.evaluate(() => sessionStorage.getItem('cati.session'));
    expect(key).toMatch(/^uis_/);
    const id = (await ui.server.server.ctx.keys.ui.authenticate(key!))!.id;
    expect(await ui.server.server.ctx.keys.ui.revoke(id)).toBe(true);
    await page.evaluate(() => (window.location.hash = '#/settings'));
    await page.getByRole('heading', { name: 'Sign in' }).waitFor(); // docs/people.md#users: the sign-in page instead of the screen
    await page.getByText(/Your session has ended/).waitFor();
    await page.context().close();
  });
});
