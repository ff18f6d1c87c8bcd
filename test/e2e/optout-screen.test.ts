import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { parseRecords } from '../../common/files/csv-records.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUi, type UiHarness } from './ui-harness.ts';

let ui: UiHarness;
let page: Page;

beforeAll(async () => {
  ui = await startUi();
  page = await ui.open('optout');
  await page.getByRole('heading', { name: 'Opt-out lists' }).waitFor();
});
afterAll(() => ui?.close());

const entries = () => page.getByRole('tabpanel').getByRole('table');
const addForm = (name: string) => page.getByRole('form', { name });

describe('Opt-out screen in Chromium', () => {
  it('offers to create the company-level list when it does not exist, and creates it', async () => {
    await expect.poll(() => page.getByText('The company-level list does not exist yet.').count()).toBe(1);
    await page.getByRole('button', { name: 'Create list' }).click();
    await expect.poll(() => page.getByTestId('current-list').textContent()).toMatch(/Company list \(list \d+\)/);
    const { status } = await ui.server.json('GET', '/optout/lists');
    expect(status).toBe(200);
  });

  it('adds an e-mail address, stored lowercase', async () => {
    await addForm('Add an e-mail address').getByLabel('E-mail address').fill('Alice@Example.COM');
    await addForm('Add an e-mail address').getByRole('button', { name: 'Add' }).click();
    await expect.poll(() => entries().textContent()).toContain('alice@example.com');
  });

  it('imports a CSV file and shows the import result', async () => {
    await page.getByLabel('File (.csv, .txt or .xlsx)').setInputFiles({
      name: 'unsubscribed.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('email\nbob@example.com\ncarol@example.org\nalice@example.com\nnot-an-address\n'),
    });
    await page.getByRole('region', { name: /^Import/ }).getByRole('button', { name: 'Import' }).click();
    await expect.poll(() => page.getByTestId('optout-import-result').textContent()).toMatch(/New 2, duplicates 1, invalid 1/);
    await expect.poll(() => entries().textContent()).toContain('carol@example.org');
  });

  it('filters and sorts the e-mail addresses', async () => {
    await page.getByRole('tabpanel').getByRole('search').getByLabel('Filter').fill('example.org');
    await page.getByRole('tabpanel').getByRole('search').getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => entries().textContent()).not.toContain('bob@example.com');
    expect(await entries().textContent()).toContain('carol@example.org');
    await page.getByRole('tabpanel').getByRole('search').getByLabel('Filter').fill('');
    await page.getByRole('tabpanel').getByRole('search').getByRole('button', { name: 'Filter' }).click();

    await page.getByRole('button', { name: /^E-mail address/ }).click(); // second click: descending
    await expect.poll(async () => (await entries().locator('tbody td.mono').allTextContents())[0]).toBe('carol@example.org');
    expect(await page.getByRole('columnheader', { name: /E-mail address/ }).getAttribute('aria-sort')).toBe('descending');
  });

  it('exports the e-mail addresses as the screen shows them: every entry, its columns, times in the zone shown', async () => {
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^optout-company-emails-\d{4}-\d\d-\d\d\.csv$/);
    const [head, ...rows] = parseRecords(readFileSync((await file.path())!, 'utf8').replace(/^\uFEFF/, '').trimEnd(), ',');
    const header = await page.getByRole('columnheader', { name: /^Added/ }).first().textContent();
    expect(head).toEqual(['E-mail address', header!.trim(), 'Unsubscribed from']);
    expect(head![1]).toMatch(/Added \(.+\)/);
    // The screen's order (e-mail address, descending since the sort test), times as the table shows them.
    expect(rows.map((r) => r[0])).toEqual(['carol@example.org', 'bob@example.com', 'alice@example.com']);
    const shownTime = (await entries().locator('tbody tr').first().locator('td').nth(1).textContent())!.trim();
    expect(rows[0]![1]).toBe(shownTime);
  });

  it('deletes an e-mail address after confirmation', async () => {
    await page.getByRole('button', { name: 'Delete bob@example.com' }).click();
    await page.getByRole('button', { name: 'Delete bob@example.com from this list' }).click();
    await expect.poll(() => entries().textContent()).not.toContain('bob@example.com');
  });

  it('adds a domain on the domains tab, and shows the error for an invalid one', async () => {
    await page.getByRole('tab', { name: 'Domains' }).click();
    const form = addForm('Add a domain');
    await form.getByLabel('Domain').fill('Spam.Example');
    await form.getByRole('button', { name: 'Add' }).click();
    await expect.poll(() => entries().textContent()).toContain('spam.example');

    await form.getByLabel('Domain').fill('not a domain');
    await form.getByRole('button', { name: 'Add' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/HTTP 400/);
  });

  it('opens and creates a project-level list', async () => {
    await page.getByLabel('Project list').check();
    await page.getByLabel('Project id').fill('p1234');
    await page.getByRole('button', { name: 'Open' }).click();
    await expect.poll(() => page.getByText('Project p1234 has no opt-out list yet.').count()).toBe(1);
    await page.getByRole('button', { name: 'Create list' }).click();
    await expect.poll(() => page.getByTestId('current-list').textContent()).toMatch(/Project p1234/);
    await expect.poll(() => entries().textContent()).toContain('No entries yet');
  });

  it('shows an address that unsubscribed while the screen was away, when it is shown again', async () => {
    const id = (await ui.server.json('GET', '/optout/lists?projectId=p1234')).body.id as number;
    await page.getByRole('tab', { name: 'E-mail addresses' }).click();
    await expect.poll(() => entries().textContent()).toContain('No entries yet');
    const nav = page.getByRole('navigation', { name: 'Screens' });
    await nav.getByRole('link', { name: 'Blacklist', exact: true }).click();
    await page.getByRole('heading', { name: 'Telephone blacklist', level: 1 }).waitFor();
    expect((await ui.server.json('POST', `/optout/lists/${id}/emails`, { body: { emailAddress: 'zoe@example.org' } })).status).toBe(200);
    await nav.getByRole('link', { name: 'Opt-out lists', exact: true }).click();
    await expect.poll(() => entries().textContent()).toContain('zoe@example.org');
  });
});
