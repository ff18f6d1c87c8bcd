/**
 * The screens in the person's language (docs/screens.md#language): a Dutch and a German supervisor sign in, go
 * through the daily screens and meet their own words, `<html lang>`, their date format and an axe-clean page.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './axe.ts';
import { startUi, uiLinkFragment, type UiHarness } from './ui-harness.ts';

let ui: UiHarness;

beforeAll(async () => {
  ui = await startUi();
  expect((await ui.server.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '0201234567', Type: 'Equal', Comment: 'Wil niet gebeld worden' } })).status).toBe(201);
});
afterAll(() => ui?.close());

/** Opens the UI link in a browser whose languages are `languages` (and, when given, a choice kept in this browser). */
async function openIn(languages: string[], kept?: string): Promise<{ page: Page; context: BrowserContext }> {
  const context = await ui.browser.newContext({ viewport: { width: 1280, height: 860 } });
  await context.addInitScript(([langs, choice]) => {
    Object.defineProperty(navigator, 'languages', { get: () => langs });
    if (choice && !sessionStorage.getItem('seeded')) {
      localStorage.setItem('cati.language', choice);
      sessionStorage.setItem('seeded', '1');
    }
  }, [languages, kept ?? null] as const);
  const page = await context.newPage();
  await page.goto(`${ui.server.url}${await uiLinkFragment(ui.server)}`);
  await page.locator('header nav').waitFor();
  return { page, context };
}

const go = (page: Page, screen: string) => page.evaluate((s) => (window.location.hash = `#/${s}`), screen);
const lang = (page: Page) => page.evaluate(() => document.documentElement.lang);

const CASES = [
  {
    language: 'nl',
    browser: ['nl-NL', 'nl'],
    nav: ['Vloer', 'Historie', 'Zwarte lijst', 'Afmeldlijsten', 'Instellingen'],
    floor: { heading: 'Vloer', counter: 'Ingelogd', empty: 'Er is niemand ingelogd.' },
    history: { heading: 'Historie', button: 'Tonen', tab: 'Gesprekken' },
    blacklist: { heading: 'Zwarte lijst telefoonnummers', button: 'Toevoegen', check: 'Nummer controleren' },
    productivity: { heading: 'Productiviteit', button: 'Tonen', centre: 'Callcenter', chart: 'Completes per uur' },
    interviewers: { heading: 'Interviewers', button: 'Zoeken', search: 'Zoek op login of weergavenaam', state: 'Nu ingelogd' },
    date: /^\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}$/,
  },
  {
    language: 'de',
    browser: ['de-DE', 'de'],
    nav: ['Live-Übersicht', 'Verlauf', 'Sperrliste', 'Abmeldelisten', 'Einstellungen'],
    floor: { heading: 'Live-Übersicht', counter: 'Angemeldet', empty: 'Niemand ist angemeldet.' },
    history: { heading: 'Verlauf', button: 'Anzeigen', tab: 'Anrufe' },
    blacklist: { heading: 'Telefon-Sperrliste', button: 'Hinzufügen', check: 'Nummer prüfen' },
    productivity: { heading: 'Produktivität', button: 'Anzeigen', centre: 'Callcenter', chart: 'Completes pro Stunde' },
    interviewers: { heading: 'Interviewer', button: 'Suchen', search: 'Login oder Anzeigename suchen', state: 'Jetzt angemeldet' },
    date: /^\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}:\d{2}$/,
  },
] as const;

for (const c of CASES) {
  describe(`in ${c.language} (the browser's language)`, () => {
    let page: Page;
    beforeAll(async () => {
      ({ page } = await openIn([...c.browser]));
    });

    it('names the language in <html lang> and translates the navigation', async () => {
      expect(await lang(page)).toBe(c.language);
      const nav = page.locator('header nav');
      for (const name of c.nav) await expect.poll(() => nav.getByRole('link', { name, exact: true }).count()).toBe(1);
      expect(await page.getByRole('link', { name: 'Floor', exact: true }).count()).toBe(0);
    });

    it('shows the floor in its words, and is axe clean', async () => {
      await go(page, 'floor');
      await page.getByRole('heading', { level: 1, name: c.floor.heading, exact: true }).waitFor();
      await expect.poll(() => page.getByText(c.floor.counter, { exact: true }).count()).toBe(1);
      await expect.poll(() => page.getByText(c.floor.empty).count()).toBe(1);
      expect(await axeViolations(page)).toEqual([]);
    });

    it('shows the history with its buttons and tabs, and is axe clean', async () => {
      await go(page, 'history');
      await page.getByRole('heading', { level: 1, name: c.history.heading, exact: true }).waitFor();
      expect(await page.getByRole('button', { name: c.history.button, exact: true }).count()).toBe(1);
      expect(await page.getByRole('tab', { name: c.history.tab, exact: true }).count()).toBe(1);
      expect(await axeViolations(page)).toEqual([]);
    });

    it('shows the blacklist with dates in its format, and is axe clean', async () => {
      await go(page, 'blacklist');
      await page.getByRole('heading', { level: 1, name: c.blacklist.heading, exact: true }).waitFor();
      expect(await page.getByRole('button', { name: c.blacklist.button, exact: true }).count()).toBe(1);
      expect(await page.getByRole('heading', { name: c.blacklist.check, exact: true }).count()).toBe(1);
      const row = page.locator('tr', { hasText: '0201234567' }).first();
      await row.waitFor();
      const created = (await row.locator('td').nth(3).textContent())?.trim() ?? '';
      expect(created).toMatch(c.date);
      expect(await axeViolations(page)).toEqual([]);
    });

    it('shows Productivity in its words, and is axe clean', async () => {
      await go(page, 'productivity');
      await page.getByRole('heading', { level: 1, name: c.productivity.heading, exact: true }).waitFor();
      expect(await page.getByRole('button', { name: c.productivity.button, exact: true }).count()).toBe(1);
      expect(await page.getByRole('combobox', { name: c.productivity.centre, exact: true }).count()).toBe(1);
      expect(await page.getByText('Login time', { exact: true }).count()).toBe(0);
      expect(await axeViolations(page)).toEqual([]);
    });

    it('shows Interviewers in its words, and is axe clean', async () => {
      await go(page, 'interviewers');
      await page.getByRole('heading', { level: 1, name: c.interviewers.heading, exact: true }).waitFor();
      expect(await page.getByRole('button', { name: c.interviewers.button, exact: true }).count()).toBe(1);
      expect(await page.getByRole('searchbox', { name: c.interviewers.search }).count()).toBe(1);
      expect(await page.getByRole('option', { name: c.interviewers.state, exact: true }).count()).toBe(1);
      expect(await page.getByText('Logged in now', { exact: true }).count()).toBe(0);
      expect(await axeViolations(page)).toEqual([]);
    });
  });
}

describe('choosing the language', () => {
  it('keeps Settings → Language in this browser for a UI-link session and switches the screens at once', async () => {
    const { page } = await openIn(['en-US', 'en']);
    expect(await lang(page)).toBe('en');
    await go(page, 'settings');
    const section = page.locator('section', { has: page.getByRole('heading', { name: 'Language', exact: true }) });
    await section.getByRole('combobox').selectOption('de');
    await section.getByRole('button').click();
    await expect.poll(() => lang(page)).toBe('de');
    await page.getByRole('heading', { level: 1, name: 'Einstellungen' }).waitFor();
    await expect.poll(() => page.getByText('Sprache in diesem Browser gespeichert: Deutsch.').count()).toBe(1);
    // Kept: a new page of this browser opens in German.
    await page.reload();
    await page.locator('header nav').waitFor();
    expect(await lang(page)).toBe('de');
    expect(await axeViolations(page)).toEqual([]);
  });

  it('lets the sign-in page switch the language, kept in this browser', async () => {
    const context = await ui.browser.newContext({ viewport: { width: 1280, height: 860 } });
    await context.addInitScript(() => Object.defineProperty(navigator, 'languages', { get: () => ['en-US'] }));
    const page = await context.newPage();
    await page.goto(`${ui.server.url}/`);
    await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
    await page.getByRole('combobox', { name: 'Language' }).selectOption('nl');
    await page.getByRole('heading', { name: 'Aanmelden', exact: true }).waitFor();
    expect(await lang(page)).toBe('nl');
    expect(await page.getByRole('button', { name: 'Aanmelden', exact: true }).count()).toBe(1);
    expect(await page.evaluate(() => localStorage.getItem('cati.language'))).toBe('nl');
    expect(await axeViolations(page)).toEqual([]);
  });

  it('speaks English when the browser asks for a language the screens do not have', async () => {
    const { page } = await openIn(['fr-FR', 'fr']);
    expect(await lang(page)).toBe('en');
    expect(await page.locator('header nav').getByRole('link', { name: 'Floor', exact: true }).count()).toBe(1);
  });
});
