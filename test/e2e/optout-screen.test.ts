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

/**
 * Makes a list through the API (as a script would: '' = the company list, else a project's), puts `emails` on it, and
 * shows it on a freshly loaded screen (its address, as a bookmark opens it: the e-mail tab, no filter, the default
 * sort), waiting until the screen lists them. Each test has a list of its own; none reads another's.
 */
async function showList(projectId: string, emails: string[] = []): Promise<number> {
  const made = await ui.server.json('POST', '/optout/lists', { body: projectId ? { projectId } : {} });
  expect(made.status).toBe(200);
  const id = made.body.id as number;
  for (const emailAddress of emails) expect((await ui.server.json('POST', `/optout/lists/${id}/emails`, { body: { emailAddress } })).status).toBe(200);
  await page.evaluate((p) => history.replaceState(null, '', p ? `#/optout?project=${p}` : '#/optout'), projectId);
  await page.reload();
  await expect.poll(() => page.getByTestId('current-list').textContent()).toBe(projectId ? `Project ${projectId} (list ${id})` : `Company list (list ${id})`);
  for (const email of emails) await expect.poll(() => entries().textContent()).toContain(email);
  return id;
}

describe('Opt-out screen in Chromium', () => {
  it('offers to create the company-level list when it does not exist, and creates it', async () => {
    await expect.poll(() => page.getByText('The company-level list does not exist yet.').count()).toBe(1);
    await page.getByRole('button', { name: 'Create list' }).click();
    await expect.poll(() => page.getByTestId('current-list').textContent()).toMatch(/Company list \(list \d+\)/);
    const { status } = await ui.server.json('GET', '/optout/lists');
    expect(status).toBe(200);
  });

  it('adds an e-mail address, stored lowercase', async () => {
    await showList('p2001');
    await addForm('Add an e-mail address').getByLabel('E-mail address').fill('Alice@Example.COM');
    await addForm('Add an e-mail address').getByRole('button', { name: 'Add' }).click();
    await expect.poll(() => entries().textContent()).toContain('alice@example.com');
  });

  it('imports a CSV file and shows the import result', async () => {
    await showList('p2002', ['dave@example.com']);
    await page.getByLabel('File (.csv, .txt or .xlsx)').setInputFiles({
      name: 'unsubscribed.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('email\nerin@example.com\nfrank@example.org\ndave@example.com\nnot-an-address\n'),
    });
    await page.getByRole('region', { name: /^Import/ }).getByRole('button', { name: 'Import' }).click();
    await expect.poll(() => page.getByTestId('optout-import-result').textContent()).toMatch(/New 2, duplicates 1, invalid 1/);
    await expect.poll(() => entries().textContent()).toContain('frank@example.org');
  });

  it('filters and sorts the e-mail addresses', async () => {
    await showList('p2003', ['faye@example.com', 'gina@example.com', 'hank@example.org']);
    await page.getByRole('tabpanel').getByRole('search').getByLabel('Filter').fill('example.org');
    await page.getByRole('tabpanel').getByRole('search').getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => entries().textContent()).not.toContain('gina@example.com');
    expect(await entries().textContent()).toContain('hank@example.org');
    await page.getByRole('tabpanel').getByRole('search').getByLabel('Filter').fill('');
    await page.getByRole('tabpanel').getByRole('search').getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => entries().textContent()).toContain('gina@example.com');

    await page.getByRole('button', { name: /^E-mail address/ }).click(); // second click: descending
    await expect.poll(async () => (await entries().locator('tbody td.mono').allTextContents())[0]).toBe('hank@example.org');
    expect(await page.getByRole('columnheader', { name: /E-mail address/ }).getAttribute('aria-sort')).toBe('descending');
  });

  it('exports the e-mail addresses as the screen shows them: every entry, its columns, times in the zone shown', async () => {
    // The company list: only this test puts entries on it.
    await showList('', ['ivan@example.com', 'jade@example.org', 'kai@example.net']);
    await page.getByRole('button', { name: /^E-mail address/ }).click(); // second click: descending
    await expect.poll(async () => (await entries().locator('tbody td.mono').allTextContents())[0]).toBe('kai@example.net');
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^optout-company-emails-\d{4}-\d\d-\d\d\.csv$/);
    const [head, ...rows] = parseRecords(readFileSync((await file.path())!, 'utf8').replace(/^\uFEFF/, '').trimEnd(), ',');
    const header = await page.getByRole('columnheader', { name: /^Added/ }).first().textContent();
    expect(head).toEqual(['E-mail address', header!.trim(), 'Unsubscribed from']);
    expect(head![1]).toMatch(/Added \(.+\)/);
    // The screen's order (e-mail address, descending), times as the table shows them.
    expect(rows.map((r) => r[0])).toEqual(['kai@example.net', 'jade@example.org', 'ivan@example.com']);
    const shownTime = (await entries().locator('tbody tr').first().locator('td').nth(1).textContent())!.trim();
    expect(rows[0]![1]).toBe(shownTime);
  });

  it('deletes an e-mail address after confirmation', async () => {
    await showList('p2005', ['bob@example.com']);
    await page.getByRole('button', { name: 'Delete bob@example.com' }).click();
    await page.getByRole('button', { name: 'Delete bob@example.com from this list' }).click();
    await expect.poll(() => entries().textContent()).not.toContain('bob@example.com');
  });

  it('adds a domain on the domains tab, and shows the error for an invalid one', async () => {
    await showList('p2006');
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
    const id = await showList('p2007');
    await expect.poll(() => entries().textContent()).toContain('No entries yet');
    const nav = page.getByRole('navigation', { name: 'Screens' });
    await nav.getByRole('link', { name: 'Blacklist', exact: true }).click();
    await page.getByRole('heading', { name: 'Telephone blacklist', level: 1 }).waitFor();
    expect((await ui.server.json('POST', `/optout/lists/${id}/emails`, { body: { emailAddress: 'zoe@example.org' } })).status).toBe(200);
    await nav.getByRole('link', { name: 'Opt-out lists', exact: true }).click();
    await expect.poll(() => entries().textContent()).toContain('zoe@example.org');
  });
});
