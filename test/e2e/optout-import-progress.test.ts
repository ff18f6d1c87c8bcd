import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './axe.ts';
import { startHoldingProxy, type HoldingProxy } from './holding-proxy.ts';
import { startUi, uiLinkFragment, type UiHarness } from './ui-harness.ts';

let ui: UiHarness;
let page: Page;
let listId: number;
let proxy: HoldingProxy;

beforeAll(async () => {
  ui = await startUi();
  listId = (await ui.server.json('POST', '/optout/lists', { body: { projectId: 'p7001' } })).body.id;
  // The browser talks to the server through a proxy that can hold the import's answer (the server has the whole file).
  proxy = await startHoldingProxy(ui.server.url);
  const context = await ui.browser.newContext({ viewport: { width: 1280, height: 860 }, acceptDownloads: true });
  page = await context.newPage();
  await page.goto(`${proxy.url}${await uiLinkFragment(ui.server)}`);
  await page.getByRole('navigation', { name: 'Screens' }).waitFor();
  await page.evaluate(() => (window.location.hash = '#/optout?project=p7001&orderby=EmailAddress%20desc'));
  await page.getByRole('heading', { name: 'Opt-out lists' }).waitFor();
});
afterAll(async () => {
  await proxy?.close();
  await ui?.close();
});

const importPanel = () => page.getByRole('region', { name: /^Import/ });

describe('Opt-out import: upload progress, processing, invalid rows', () => {
  it('opens the list named in the address with its sort', async () => {
    await expect.poll(() => page.getByTestId('current-list').textContent()).toBe(`Project p7001 (list ${listId})`);
    expect(await page.getByRole('columnheader', { name: 'E-mail address' }).getAttribute('aria-sort')).toBe('descending');
  });

  it('shows the upload, then the processing state, then the result with the invalid rows (downloadable)', async () => {
    const rows = ['email'];
    for (let i = 0; i < 40_000; i++) rows.push(`person${i}@example.com`);
    rows.splice(3, 0, 'not-an-address');
    rows.push('Some <x@example.com>');
    const content = Buffer.from(rows.join('\n'));
    await page.getByLabel('File (.csv, .txt or .xlsx)').setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: content });

    // Hold the answer: the whole file has been sent, the server is "processing".
    const held = proxy.holdNext(/\/emails\/import/);
    await importPanel().getByRole('button', { name: 'Import' }).click();
    const url = await held.reached;
    const progress = page.getByTestId('optout-import-progress');
    await expect.poll(() => progress.getByRole('progressbar', { name: 'Processing' }).count()).toBe(1);
    const uploaded = progress.getByRole('progressbar', { name: 'Upload progress' });
    expect(Number(await uploaded.getAttribute('value'))).toBeGreaterThanOrEqual(content.length);
    expect(await uploaded.getAttribute('value')).toBe(await uploaded.getAttribute('max'));
    expect(await progress.textContent()).toMatch(/Uploaded [\d.]+ [KM]B of [\d.]+ [KM]B/);
    expect(await axeViolations(page)).toEqual([]);
    held.release();

    const result = page.getByTestId('optout-import-result');
    await expect.poll(() => result.textContent(), { timeout: 30_000 }).toContain('New 40000, duplicates 0, invalid 2.');
    expect(url).toContain('invalidRows=list');
    expect(await progress.count()).toBe(0);
    const table = result.getByRole('table', { name: /Rows not imported/ });
    const cells = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 2).map((td) => td.textContent)));
    expect(cells).toEqual([['3', 'not-an-address'], ['40002', 'Some <x@example.com>']]);

    const [download] = await Promise.all([page.waitForEvent('download'), result.getByRole('button', { name: 'Download invalid rows (CSV)' }).click()]);
    const text = (await readFile((await download.path())!, 'utf8')).replace(/^\uFEFF/, '');
    const lines = text.trim().split('\r\n');
    expect(lines[0]).toBe('row,value,reason');
    expect(lines[1]).toMatch(/^3,not-an-address,.+/);
    expect(lines[2]).toMatch(/^40002,Some <x@example\.com>,.+/);
    const { body } = await ui.server.json('GET', `/optout/lists/${listId}/emails?$pageSize=1`);
    expect(body.totalCount).toBe(40_000);
  });
});
