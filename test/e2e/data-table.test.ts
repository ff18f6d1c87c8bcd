import { readFile } from 'node:fs/promises';
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './axe.ts';
import { startUi, type UiHarness } from './ui-harness.ts';

/**
 * docs/screens.md#truth through the one data table: headers that sort (aria-sort), a quick filter, arrow keys between rows,
 * "export what you see", the loading / failed / offline states of a Settings section with "cannot be reached" said
 * once, and times in the call centre's zone, named in the header.
 */
let ui: UiHarness;

beforeAll(async () => {
  ui = await startUi();
  const api = ui.server.json;
  for (const [name, display] of [['anna', 'Anna Berg'], ['ben', 'Ben Cole'], ['cara', 'Cara Dunn']]) {
    expect((await api('POST', '/cati/interviewerproperties', { body: { Name: name, DisplayName: display, Password: 'secret-12' } })).status).toBe(201);
  }
  const ben = (await api('GET', "/cati/interviewers?$filter=Name eq 'ben'")).body.value[0].InterviewerId;
  expect((await api('GET', `/cati/interviewers(${ben})/Controller.Lock()`)).status).toBe(200);
});
afterAll(() => ui?.close());

/** The visible cells of a table's body rows. */
const bodyRows = (page: Page, name: string) =>
  page.getByRole('table', { name }).locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('th, td')].map((c) => (c.textContent ?? '').replace(/\s+/g, ' ').trim())));

/** RFC 4180 rows of a simple CSV (no line breaks inside cells), BOM dropped. */
const csvRows = (text: string) =>
  text.replace(/^\uFEFF/, '').trimEnd().split('\r\n').map((line) => [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)].slice(0, -1).map((m) => m[1]!.replace(/^"|"$/g, '').replace(/""/g, '"')));

describe('The data table', () => {
  it('sorts by a header (aria-sort), moves between rows with the arrow keys, and exports the rows and columns shown', async () => {
    const page = await ui.open('interviewers');
    const table = page.getByRole('table', { name: 'Interviewers' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(3);
    const login = table.getByRole('columnheader', { name: 'Display name' });
    await login.getByRole('button').click();
    await expect.poll(() => login.getAttribute('aria-sort')).toBe('ascending');
    await login.getByRole('button').click();
    await expect.poll(() => login.getAttribute('aria-sort')).toBe('descending');
    await expect.poll(async () => (await bodyRows(page, 'Interviewers')).map((r) => r[1])).toEqual(['cara', 'ben', 'anna']);

    // Arrow keys: from a row's control to the same column's control in the next row, Home/End to the first/last.
    await table.getByRole('button', { name: 'Actions for cara' }).focus();
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Actions for ben');
    await page.keyboard.press('End');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Actions for anna');
    await page.keyboard.press('ArrowUp');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Actions for ben');

    const shown = await bodyRows(page, 'Interviewers');
    const header = await table.locator('thead th').evaluateAll((ths) => ths.map((th) => (th.textContent ?? '').replace(/[▲▼]/g, '').trim()));
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('interviewers.csv');
    const [fileHeader, ...rows] = csvRows(await readFile((await download.path())!, 'utf8'));
    expect(fileHeader).toEqual(header.slice(0, -1)); // every column but the actions
    expect(rows).toEqual(shown.map((r) => r.slice(0, -1)));
    expect(rows.find((r) => r[1] === 'ben')![5]).not.toBe('Active'); // locked: the time it was locked
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();
  });

  it('filters the rows it has by any column, and says when nothing matches', async () => {
    for (const name of ['feed reader', 'dialer north']) {
      expect((await ui.server.json('POST', '/admin/keys', { body: { name, permissions: ['cati_integrate'] } })).status).toBe(201);
    }
    const page = await ui.open('settings');
    const keys = page.getByRole('table', { name: 'API keys' });
    await expect.poll(() => keys.locator('tbody tr').count()).toBe(2);
    const filter = page.getByRole('searchbox', { name: 'Filter API keys' });
    await filter.fill('NORTH');
    await expect.poll(async () => (await bodyRows(page, 'API keys')).map((r) => r[0])).toEqual(['dialer north']);
    await filter.fill('no-such-key');
    await expect.poll(() => keys.locator('tbody').textContent()).toContain('Nothing matches “no-such-key”.');
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();
  });
});

describe('Settings sections: loading, failed and offline, said once', () => {
  const outcomes = (page: Page) => page.locator('section[aria-labelledby="st-outcomes"]');

  it('says "Loading outcomes…" with aria-busy while the answer is held, then shows the rows', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const page = await ui.open('settings', async (c) => {
      await c.route('**/cati/extendedstatuses**', async (route: Route) => {
        await held;
        await route.continue().catch(() => undefined);
      });
    });
    await outcomes(page).getByRole('status').filter({ hasText: 'Loading outcomes…' }).waitFor();
    expect(await outcomes(page).getByRole('table').getAttribute('aria-busy')).toBe('true');
    expect(await outcomes(page).getByText(/No outcomes yet/).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    release();
    await expect.poll(() => outcomes(page).getByRole('table').getAttribute('aria-busy')).toBe('false');
    expect(await outcomes(page).getByText(/Loading outcomes/).count()).toBe(0);
    await page.context().close();
  });

  it('says the section failed, with the server message and Retry', async () => {
    const page = await ui.open('settings', async (c) => {
      await c.route('**/cati/extendedstatuses**', (r) =>
        r.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ error: { code: 'Internal', message: 'Disk on fire.' } }) }),
      );
    });
    const alert = outcomes(page).getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Outcomes could not be loaded: Disk on fire.');
    expect(await outcomes(page).getByText(/No outcomes yet/).count()).toBe(0);
    await page.context().unroute('**/cati/extendedstatuses**');
    await alert.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(() => alert.count()).toBe(0);
    await page.context().close();
  });

  it('an empty list whose refresh fails still says it was empty when last loaded, marked out of date', async () => {
    const page = await ui.open('settings');
    const breaks = page.locator('section[aria-labelledby="st-breaks"]');
    const none = breaks.getByText('No break types yet: they appear with the first break the dialer reports.');
    await none.waitFor();
    await page.context().route('**/cati/breaktypes**', (r) => r.abort('connectionrefused'));
    // Shown again (the screen is kept alive): the section asks again, and cannot reach the server.
    await page.evaluate(() => (window.location.hash = '#/groups'));
    await page.getByRole('heading', { name: 'Groups', level: 1 }).waitFor();
    await page.evaluate(() => (window.location.hash = '#/settings'));
    const alert = breaks.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/The server cannot be reached: break types could not be loaded\. Showing what was loaded at \d\d:\d\d:\d\d \(out of date\)/);
    expect(await none.count()).toBe(1);
    await page.context().close();
  });

  it('when the server cannot be reached, says so once: in place, not again as a notice', async () => {
    const page = await ui.open('interviewers', async (c) => {
      await c.route('**/cati/**', (r) => r.abort('connectionrefused'));
    });
    await page.getByRole('alert').filter({ hasText: 'The server cannot be reached: interviewers could not be loaded.' }).waitFor();
    await page.waitForTimeout(500); // the group options' load fails too (a notice, left out while the region says it)
    expect(await page.getByText(/cannot be reached/).count()).toBe(1);
    expect(await page.locator('.notice').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();
  });
});

describe('Times in the call centre\'s zone', () => {
  it('Interviewers and Blacklist show times in the centre\'s zone (not this computer\'s) and name it in the header', async () => {
    expect((await ui.server.json('PATCH', '/cati/callcenters(1)', { body: { TimeZone: 'Asia/Tokyo' } })).status).toBeLessThan(300);
    expect((await ui.server.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '0301234567', Type: 'Equal' } })).status).toBe(201);
    const page = await ui.open('interviewers');
    const table = page.getByRole('table', { name: 'Interviewers' });
    await table.getByRole('columnheader', { name: 'Locked since (GMT+9)' }).waitFor();
    const locked = (await ui.server.json('GET', "/cati/interviewers?$filter=Name eq 'ben'")).body.value[0].LockedDate as string;
    const tokyo = new Intl.DateTimeFormat(undefined, {
      timeZone: 'Asia/Tokyo', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
    }).format(new Date(locked));
    await expect.poll(async () => (await bodyRows(page, 'Interviewers')).find((r) => r[1] === 'ben')?.[5]).toBe(tokyo);

    await page.evaluate(() => (window.location.hash = '#/blacklist'));
    await page.getByRole('table', { name: 'Numbers' }).getByRole('columnheader', { name: 'Created (GMT+9)' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);

    // "Showing what was loaded at …" of a failed refresh is in the same zone as the table's times.
    await page.context().route((url) => url.pathname === '/cati/interviewers', (r) => r.abort('connectionrefused'));
    const shownAt = Date.now();
    await page.evaluate(() => (window.location.hash = '#/interviewers'));
    const alert = page.getByRole('alert').filter({ hasText: 'interviewers could not be loaded' });
    await alert.waitFor();
    const [, clock] = /loaded at (\d\d:\d\d:\d\d)/.exec((await alert.textContent())!)!;
    const minutes = (t: string) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3, 5));
    const inTokyo = (ms: number) => new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Tokyo', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(ms));
    // The list was loaded within the last few minutes; in Tokyo's clock (this machine's differs by hours unless it is GMT+9).
    expect(Math.abs(((minutes(clock!) - minutes(inTokyo(shownAt)) + 1440 + 720) % 1440) - 720)).toBeLessThanOrEqual(5);
    await page.context().close();
  });
});
