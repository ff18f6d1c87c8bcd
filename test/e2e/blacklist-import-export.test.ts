import { readFile } from 'node:fs/promises';
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './axe.ts';
import { startUi, type UiHarness } from './ui-harness.ts';

let ui: UiHarness;
let page: Page;

beforeAll(async () => {
  ui = await startUi();
  const api = ui.server.json;
  for (const [n, c] of [['0301000003', 'Charlie'], ['0301000001', 'Alpha'], ['0301000002', 'Bravo']]) {
    expect((await api('POST', '/cati/blacklist', { body: { TelephoneNumber: n, Comment: c } })).status).toBe(201);
  }
  page = await ui.open('blacklist');
  await page.getByRole('heading', { name: 'Telephone blacklist' }).waitFor();
});
afterAll(() => ui?.close());

const numbersTable = () => page.getByRole('table', { name: 'Numbers', exact: true });
const firstNumbers = async () => (await numbersTable().locator('tbody tr td:first-child').allTextContents()).slice(0, 3);
const importPanel = () => page.getByRole('region', { name: 'Bulk import' });

describe('Blacklist: sort, address, file import, export', () => {
  it('sorts by a column (click, then Enter) and keeps sort and search in the address across a reload', async () => {
    await expect.poll(firstNumbers).toEqual(['0301000002', '0301000001', '0301000003']); // newest first
    const header = numbersTable().getByRole('columnheader', { name: 'Comment' });
    await header.getByRole('button').click();
    await expect.poll(firstNumbers).toEqual(['0301000001', '0301000002', '0301000003']);
    expect(await header.getAttribute('aria-sort')).toBe('ascending');
    await header.getByRole('button').focus();
    await page.keyboard.press('Enter');
    await expect.poll(firstNumbers).toEqual(['0301000003', '0301000002', '0301000001']);
    expect(await header.getAttribute('aria-sort')).toBe('descending');
    await page.getByRole('search').getByLabel('Search number or comment').fill('030100000');
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.url()).toContain('orderby=Comment%20desc');
    expect(page.url()).toContain('q=030100000');

    await page.reload();
    await expect.poll(firstNumbers).toEqual(['0301000003', '0301000002', '0301000001']);
    expect(await numbersTable().getByRole('columnheader', { name: 'Comment' }).getAttribute('aria-sort')).toBe('descending');
    expect(await page.getByRole('search').getByLabel('Search number or comment').inputValue()).toBe('030100000');
    expect(await axeViolations(page)).toEqual([]);
  });

  it('imports a file of 25,000 numbers through the import job: a progress bar, the counts, comments kept, bad rows listed', async () => {
    const lines = ['TelephoneNumber;Type;Comment'];
    for (let i = 0; i < 25_000; i++) lines.push(`0709${String(i).padStart(6, '0')};Equal;batch ${i % 7}`);
    lines.push('0301000001;Equal;already there', 'call me;Equal;bad', '0709000000;Equal;repeated');
    await importPanel().getByLabel('…or a .csv / .tsv / .txt / .xlsx file').setInputFiles({ name: 'big.csv', mimeType: 'text/csv', buffer: Buffer.from(lines.join('\n')) });

    // Hold the job's first answer until the progress bar has been seen.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let polls = 0;
    await page.route(/\/cati\/blacklist\/imports\('/, async (route: Route) => {
      if (++polls === 1) await held;
      await route.continue();
    });
    await importPanel().getByRole('button', { name: 'Import' }).click();
    const bar = importPanel().getByRole('progressbar', { name: 'Blacklist import progress' });
    await expect.poll(() => bar.getAttribute('max')).toBe('25003');
    expect(await importPanel().textContent()).toMatch(/Read [\d,]+ of 25,003 rows/);
    release();
    const result = page.getByTestId('import-result');
    await expect.poll(() => result.textContent(), { timeout: 60_000 }).toMatch(/Added 25000, duplicates 2, invalid 1/);
    await page.unroute(/\/cati\/blacklist\/imports\('/);

    const invalid = result.getByRole('table', { name: /Numbers not imported/ });
    expect(await invalid.locator('tbody tr').allInnerTexts()).toEqual([expect.stringMatching(/^25002\s+call me\s+\S/)]);
    const { body } = await ui.server.json('GET', "/cati/blacklist?$filter=TelephoneNumber eq '0709000008'");
    expect(body.value[0]).toMatchObject({ Comment: 'batch 1', Type: 'Equal' });
    expect((await ui.server.json('GET', '/cati/blacklist?$count=true&$top=0')).body['@odata.count']).toBe(25003);
  }, 90_000);

  it('exports the numbers matching the search as CSV', async () => {
    await page.getByRole('search').getByLabel('Search number or comment').fill('batch 3');
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => numbersTable().textContent()).toContain('batch 3');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: /^Export CSV/ }).click()]);
    expect(download.suggestedFilename()).toMatch(/^blacklist-\d{4}-\d\d-\d\d\.csv$/);
    const text = await readFile((await download.path())!, 'utf8');
    const rows = text.replace(/^\uFEFF/, '').trim().split('\r\n');
    // The screen's columns in its order, the time in the zone shown (named in the header), then the id (docs/screens.md#truth).
    // The zone by its short name when its offset is the same all year (UTC here), else by its IANA name.
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const offset = (at: number, style: 'short' | 'longOffset') => new Intl.DateTimeFormat('en', { timeZone: zone, timeZoneName: style }).formatToParts(at).find((p) => p.type === 'timeZoneName')!.value;
    const year = new Date().getUTCFullYear();
    const named = offset(Date.UTC(year, 0, 1), 'longOffset') === offset(Date.UTC(year, 6, 1), 'longOffset') ? offset(Date.now(), 'short') : zone;
    expect(rows[0]).toBe(`Number,Type,Comment,Created (${named}),Id`);
    const expected = Array.from({ length: 25_000 }, (_, i) => i).filter((i) => i % 7 === 3).length;
    expect(rows).toHaveLength(expected + 1);
    expect(rows.slice(1).every((r) => /^0709\d{6},Equal,batch 3,"?\d[^"]*\d"?,\d+$/.test(r))).toBe(true);
  });
});
