import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './axe.ts';
import { startUi, type UiHarness } from './ui-harness.ts';

/** docs/screens.md#truth: `/favicon.ico` and the app's icon are served; a skip link leads to the main content; an opened survey is shown. */
let ui: UiHarness;

beforeAll(async () => {
  ui = await startUi();
  for (let i = 1; i <= 40; i++) {
    const r = await ui.server.json('POST', '/cati/surveys', { body: { SurveyId: `p80${String(i).padStart(2, '0')}`, SurveyName: `Survey ${i}`, State: 'Open' } });
    expect(r.status).toBe(201);
  }
});
afterAll(() => ui?.close());

describe('The app shell', () => {
  it('serves /favicon.ico and the icon without a key, with image types, and the page names them', async () => {
    const ico = await fetch(`${ui.server.url}/favicon.ico`);
    expect(ico.status).toBe(200);
    expect(ico.headers.get('content-type')).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)/);
    const bytes = new Uint8Array(await ico.arrayBuffer());
    expect([...bytes.slice(0, 4)]).toEqual([0, 0, 1, 0]); // an ICO header
    const png = await fetch(`${ui.server.url}/icon.png`);
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    const svg = await fetch(`${ui.server.url}/icon.svg`);
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/);

    const page = await ui.open('floor');
    const failed: string[] = [];
    page.on('response', (r) => r.status() >= 400 && failed.push(r.url()));
    await page.reload();
    await page.getByRole('navigation', { name: 'Screens' }).waitFor();
    expect(await page.locator('link[rel="icon"]').first().getAttribute('href')).toBe('./favicon.ico');
    expect(failed.filter((u) => /icon/.test(u))).toEqual([]);
    await page.context().close();
  });

  it('has a skip link, first in the tab order, that moves the focus to the main content without changing the screen', async () => {
    const page = await ui.open('history');
    await page.getByRole('heading', { name: 'History', level: 1 }).waitFor();
    await page.locator('body').focus();
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to main content' });
    expect(await skip.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await skip.isVisible()).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    expect(page.url()).toContain('#/history');
    // The next Tab is inside the main content, not the navigation.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => !!document.activeElement?.closest('main'))).toBe(true);
    await page.context().close();
  });

  it('scrolls an opened survey into view and focuses its heading', async () => {
    const page = await ui.open('surveys');
    await page.getByRole('heading', { name: 'Surveys', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Open Survey 40' }).waitFor();
    await page.getByRole('button', { name: 'Open Survey 40' }).click();
    const heading = page.getByRole('heading', { name: 'Survey 40 (p8040)', level: 2 });
    await heading.waitFor();
    await expect.poll(() => heading.evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight;
    }), { timeout: 3000 }).toBe(true);
    expect(await heading.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.context().close();
  });
});
