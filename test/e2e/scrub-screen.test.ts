import { readFile } from 'node:fs/promises';
import type { Page, Route } from 'playwright-core';
import XLSX from 'xlsx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './axe.ts';
import { startUi, type UiHarness } from './ui-harness.ts';

// docs/cati-api.md#scrubs: Blacklist → "Scrub a call list": preview, column picker, progress, counts, real downloads.
let ui: UiHarness;
let page: Page;

beforeAll(async () => {
  ui = await startUi();
  await ui.server.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '0301000001' } });
  await ui.server.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '0900', Type: 'StartWith' } });
  page = await ui.open('blacklist');
  await page.getByRole('heading', { name: 'Telephone blacklist' }).waitFor();
});
afterAll(() => ui?.close());

const panel = () => page.getByRole('region', { name: 'Scrub a call list' });
const LIST = 'Id,Name,Phone\n1,Ann,0301000001\n2,Bob,0900 123456\n3,Cid,0302222222\n4,Dee,call me\n';

async function download(button: string): Promise<string> {
  const [file] = await Promise.all([page.waitForEvent('download'), panel().getByRole('button', { name: button }).click()]);
  return (await readFile((await file.path())!, 'utf8')).replace(/^\uFEFF/, '');
}

describe('Blacklist: scrub a call list', () => {
  it('previews the file with the detected column, scrubs it, and downloads the kept and removed rows', async () => {
    // Before any scrub the list says it is empty (not a blank space that also means "still loading").
    await expect.poll(() => panel().getByRole('table', { name: 'Recent scrubs' }).locator('td.empty').textContent()).toBe('No scrubs in the last 24 hours.');
    await panel().getByLabel('List file').setInputFiles({ name: 'calls.csv', mimeType: 'text/csv', buffer: Buffer.from(LIST) });
    const preview = panel().getByRole('table', { name: 'Preview of calls.csv' });
    await expect.poll(() => preview.locator('th.chosen').textContent()).toContain('Phone');
    expect(await preview.locator('tbody tr').count()).toBe(4);
    expect(await panel().getByLabel('Column to check').locator('option').first().textContent()).toContain('Automatic (Phone)');
    await panel().getByRole('button', { name: 'Scrub' }).click();
    await expect.poll(() => panel().getByTestId('scrub-result').textContent(), { timeout: 30_000 }).toContain('Kept 1, removed 2, invalid 1.');
    expect(await panel().getByRole('progressbar', { name: 'Scrub progress' }).getAttribute('value')).toBe('4');
    expect(await download('Download kept rows (CSV)')).toBe('Id,Name,Phone\r\n3,Cid,0302222222\r\n');
    const removed = (await download('Download removed rows (CSV)')).trim().split('\r\n');
    expect(removed.map((r) => r.split(',').slice(0, 4).join(','))).toEqual([
      'Id,Name,Phone,Reason', '1,Ann,0301000001,blacklist', '2,Bob,0900 123456,blacklist', '4,Dee,call me,invalid',
    ]);
    const recent = panel().getByRole('table', { name: 'Recent scrubs' });
    await expect.poll(() => recent.locator('tbody tr').count()).toBe(1);
    // Each count in a column of its own (sortable, like every table's columns), with the result's figures.
    expect(await recent.locator('tbody tr td').evaluateAll((cells) => cells.slice(2, 5).map((c) => c.textContent!.trim()))).toEqual(['1', '2', '1']);
    await recent.getByRole('columnheader', { name: 'Removed' }).getByRole('button').click();
    expect(await recent.getByRole('columnheader', { name: 'Removed' }).getAttribute('aria-sort')).toBe('ascending');
    expect(await axeViolations(page)).toEqual([]);
  });

  it('the column picker changes the checked column', async () => {
    await panel().getByLabel('List file').setInputFiles({ name: 'picker.csv', mimeType: 'text/csv', buffer: Buffer.from('Ref,Name,Telephone\n7,Eve,0301000007\n') });
    const preview = panel().getByRole('table', { name: 'Preview of picker.csv' });
    await expect.poll(() => preview.locator('th.chosen').textContent()).toContain('Telephone');
    await panel().getByLabel('Column to check').selectOption({ label: 'Name' });
    expect(await preview.locator('th.chosen').textContent()).toContain('Name');
  });

  it('previews a workbook too', async () => {
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['Who', 'Number'], ['a', '0301000001']]), 'S');
    const buffer = XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
    await panel().getByLabel('List file').setInputFiles({ name: 'calls.xlsx', mimeType: 'application/octet-stream', buffer });
    await expect.poll(() => panel().getByRole('table', { name: 'Preview of calls.xlsx' }).locator('th.chosen').textContent()).toContain('Number');
  });
});

describe('Blacklist: the recent scrubs list tells loading, failed and offline apart', () => {
  /** Leaves the screen and comes back through the navigation (the screen is kept alive: coming back asks again). */
  async function comeBack() {
    const nav = page.getByRole('navigation', { name: 'Screens' });
    await nav.getByRole('link', { name: 'History' }).click();
    await page.getByRole('heading', { name: 'History', level: 1 }).waitFor();
    await nav.getByRole('link', { name: 'Blacklist' }).click();
    await page.getByRole('heading', { name: 'Telephone blacklist' }).waitFor();
  }
  const isList = (url: URL) => url.pathname.endsWith('/cati/scrubs');
  const recent = () => panel().getByRole('table', { name: 'Recent scrubs' });

  /** Scrubs LIST as `fileName` through the API (as a script would, with the test key) and waits until it is done. */
  async function scrubThroughApi(fileName: string) {
    const form = new FormData();
    form.append('file', new Blob([LIST], { type: 'text/csv' }), fileName);
    const r = await ui.server.request('POST', '/cati/scrubs', { raw: form });
    expect(r.status).toBe(202);
    const { Id } = (await r.json()) as { Id: string };
    await expect.poll(async () => (await ui.server.json('GET', `/cati/scrubs('${Id}')`)).body.State).toBe('done');
  }
  /** A scrub of this test's own, listed by the screen (shown again, it asks for the list again). */
  async function seed(fileName: string) {
    await scrubThroughApi(fileName);
    await comeBack();
    await expect.poll(() => recent().textContent()).toContain(fileName);
  }

  it('says "Loading" while the list is on its way, then shows it', async () => {
    // Listed only once the held answer comes: this scrub is not on the screen yet.
    await scrubThroughApi('loading.csv');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(isList, async (route: Route) => {
      await held;
      await route.continue();
    });
    try {
      await comeBack();
      await expect.poll(() => panel().getByRole('status').textContent()).toBe('Loading recent scrubs…');
      expect(await recent().getAttribute('aria-busy')).toBe('true');
      release();
      await expect.poll(() => panel().getByRole('status').count()).toBe(0);
      expect(await recent().locator('tbody tr', { hasText: 'loading.csv' }).count()).toBe(1);
    } finally {
      release();
      await page.unroute(isList);
    }
  });

  it('says what failed when the server refuses, keeps the last list marked out of date, and Retry loads it again', async () => {
    await seed('refused.csv');
    const listed = await recent().locator('tbody tr').allTextContents();
    await page.route(isList, (route: Route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ error: { code: '500', message: 'The database is busy.' } }) }),
    );
    try {
      await comeBack();
      const alert = panel().getByRole('alert');
      await expect.poll(() => alert.textContent()).toContain('Recent scrubs could not be loaded');
      expect(await alert.textContent()).toMatch(/Showing what was loaded at \d\d:\d\d:\d\d \(out of date\)/);
      expect(await recent().locator('tbody tr:not(:has(td.empty))').allTextContents()).toEqual(listed);
      await page.unroute(isList);
      await alert.getByRole('button', { name: 'Retry' }).click();
      await expect.poll(() => panel().getByRole('alert').count()).toBe(0);
      expect(await recent().locator('tbody tr').allTextContents()).toEqual(listed);
    } finally {
      await page.unroute(isList);
    }
  });

  it('says the server cannot be reached when it is offline', async () => {
    await page.route(isList, (route: Route) => route.abort('connectionrefused'));
    try {
      await comeBack();
      await expect.poll(() => panel().getByRole('alert').textContent()).toContain('The server cannot be reached: recent scrubs could not be loaded.');
      expect(await axeViolations(page)).toEqual([]);
    } finally {
      await page.unroute(isList);
    }
  });
});

describe('Opt-out: scrub a mailing list', () => {
  it("scrubs against the open project's list and the company list, and downloads the kept rows", async () => {
    const company = (await ui.server.json('POST', '/optout/lists', { body: {} })).body.id;
    const project = (await ui.server.json('POST', '/optout/lists', { body: { projectId: 'p501' } })).body.id;
    await ui.server.json('POST', `/optout/lists/${company}/domains`, { body: { domain: 'blocked.org' } });
    await ui.server.json('POST', `/optout/lists/${project}/emails`, { body: { emailAddress: 'bob@example.com' } });
    // A page of its own: the blacklist page stays as the tests above left it.
    const page = await ui.open('optout');
    await page.getByRole('heading', { name: 'Opt-out lists' }).waitFor();
    await page.getByLabel('Project list').check();
    await page.getByLabel('Project id').fill('p501');
    await page.getByRole('button', { name: 'Open' }).click();
    const mail = page.getByRole('region', { name: 'Scrub a mailing list' });
    await mail.getByLabel('List file').setInputFiles({ name: 'mail.csv', mimeType: 'text/csv', buffer: Buffer.from('Name,Email\nAnn,ann@x.blocked.org\nBob,bob@example.com\nCid,cid@example.com\n') });
    await expect.poll(() => mail.getByRole('table', { name: 'Preview of mail.csv' }).locator('th.chosen').textContent()).toContain('Email');
    await mail.getByRole('button', { name: 'Scrub' }).click();
    await expect.poll(() => mail.getByTestId('scrub-result').textContent(), { timeout: 30_000 }).toContain('Kept 1, removed 2, invalid 0.');
    const [file] = await Promise.all([page.waitForEvent('download'), mail.getByRole('button', { name: 'Download kept rows (CSV)' }).click()]);
    expect((await readFile((await file.path())!, 'utf8')).replace(/^\uFEFF/, '')).toBe('Name,Email\r\nCid,cid@example.com\r\n');
    expect(await axeViolations(page)).toEqual([]);
  });
});
