import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUi, type UiHarness } from './ui-harness.ts';

let ui: UiHarness;
let page: Page;

beforeAll(async () => {
  ui = await startUi();
  page = await ui.open('blacklist');
  await page.getByRole('heading', { name: 'Telephone blacklist' }).waitFor();
});
afterAll(() => ui?.close());

const numbersTable = () => page.getByRole('table', { name: 'Numbers', exact: true });
const addForm = () => page.getByRole('form', { name: 'Add a number' });

/** Puts a number on the blacklist through the API (as the dialer or a script would) and waits for the screen to list it. */
async function seed(TelephoneNumber: string, Type: 'Equal' | 'StartWith' = 'Equal', Comment: string | null = null) {
  const r = await ui.server.json('POST', '/cati/blacklist', { body: { TelephoneNumber, Type, Comment } });
  expect(r.status).toBe(201);
  await expect.poll(() => numbersTable().textContent()).toContain(TelephoneNumber);
}

async function addNumber(number: string, comment = '') {
  await addForm().getByLabel('Number').fill(number);
  await addForm().getByLabel('Comment').fill(comment);
  await addForm().getByRole('button', { name: 'Add' }).click();
}

describe('Blacklist screen in Chromium', () => {
  it('takes the session from the #token= link and removes the token from the address bar', async () => {
    expect(page.url()).not.toContain('token=');
    expect(page.url()).toMatch(/#\/blacklist$/);
  });

  it('a confirmation that comes and goes leaves the rows where they were (no click lands on a row that moved)', async () => {
    await seed('0612340077');
    const row = page.getByRole('row').filter({ hasText: '0612340077' });
    const before = await row.boundingBox();
    await addNumber('0612340078');
    const notice = page.locator('.notice.success').filter({ hasText: '0612340078' });
    await notice.waitFor();
    // The new number is the newest row: it comes above, one row height; nothing else moves the rows.
    const added = (await page.getByRole('row').filter({ hasText: '0612340078' }).boundingBox())!;
    const shown = (await row.boundingBox())!;
    expect(shown.y - before!.y).toBeCloseTo(added.height, 0);
    await notice.getByRole('button').click(); // as when it fades
    await notice.waitFor({ state: 'detached' });
    expect((await row.boundingBox())!.y).toBe(shown.y);
  });

  it('adds a number with spaces and punctuation stripped, and lists it', async () => {
    await addNumber('+49 30 1234-567', 'Asked not to be called');
    await expect.poll(() => numbersTable().textContent()).toContain('49301234567');
    await expect.poll(() => numbersTable().textContent()).toContain('Asked not to be called');
    const { body } = await ui.server.json('GET', "/cati/blacklist?$filter=TelephoneNumber eq '49301234567'");
    expect(body.value).toHaveLength(1);
  });

  it('shows numbers the dialer adds while the screen is watched (/events), and keeps a row being edited', async () => {
    await addNumber('0301234000', 'Edited while others import');
    await expect.poll(() => numbersTable().textContent()).toContain('Edited while others import');
    await page.getByRole('button', { name: 'Edit 0301234000' }).click();
    const editing = page.locator('tr.editing');
    await editing.getByLabel('Comment').fill('typing, not saved');
    const r = await ui.server.json('POST', '/cati/blacklist/Controller.Import', { body: { BlackListItems: ['0201111999', '0201111998'] } });
    expect(r.status).toBe(200);
    await expect.poll(() => numbersTable().textContent()).toContain('0201111999');
    expect(await numbersTable().textContent()).toContain('0201111998');
    // The reload left the row being edited as it was.
    expect(await editing.getByLabel('Comment').inputValue()).toBe('typing, not saved');
    await editing.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => numbersTable().textContent()).toContain('Edited while others import');
  });

  it('fits the numbers at 1280 px: no sideways scrolling, every Delete in view (the scrub panel sits below)', async () => {
    await addNumber('0301234111', 'A comment long enough to take room in its column');
    await expect.poll(() => numbersTable().textContent()).toContain('0301234111');
    await page.setViewportSize({ width: 1280, height: 800 });
    const panel = page.locator('section.grow');
    const [client, scroll] = await panel.evaluate((e) => [e.clientWidth, e.scrollWidth]);
    expect(scroll).toBeLessThanOrEqual(client);
    // The side column keeps its width (340 px): the recent scrubs' table, once in it, widened it to 500-620 px.
    expect(await page.locator('aside.side').evaluate((e) => e.clientWidth)).toBeLessThanOrEqual(345);
    const box = (await panel.boundingBox())!;
    const del = (await page.getByRole('button', { name: 'Delete 0301234111' }).boundingBox())!;
    expect(del.x + del.width).toBeLessThanOrEqual(box.x + box.width);
    expect(await page.getByRole('region', { name: 'Scrub a call list' }).count()).toBe(1);
  });

  it('searches with $filter and shows only matching numbers', async () => {
    await seed('0855512345');
    await seed('0309999001');
    await page.getByRole('search').getByLabel('Search number or comment').fill('08555');
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => numbersTable().textContent()).not.toContain('0309999001');
    expect(await numbersTable().textContent()).toContain('0855512345');
    await page.getByRole('search').getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => numbersTable().textContent()).toContain('0309999001');
  });

  it('deletes a number after confirmation', async () => {
    await seed('0800333444');
    await page.getByRole('button', { name: 'Delete 0800333444' }).click();
    await page.getByRole('button', { name: 'Delete 0800333444 from the blacklist' }).click();
    await expect.poll(() => numbersTable().textContent()).not.toContain('0800333444');
    const { body } = await ui.server.json('GET', "/cati/blacklist?$filter=TelephoneNumber eq '0800333444'");
    expect(body.value).toHaveLength(0);
  });

  it('edits the comment and type of a number', async () => {
    await seed('0612340001', 'Equal', 'As the dialer added it');
    await page.getByRole('button', { name: 'Edit 0612340001' }).click();
    const row = page.locator('tr.editing');
    await row.getByLabel('Type').selectOption('StartWith');
    await row.getByLabel('Comment').fill('Whole range blocked');
    await row.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => numbersTable().textContent()).toContain('Whole range blocked');
    const { body } = await ui.server.json('GET', "/cati/blacklist?$filter=TelephoneNumber eq '0612340001'");
    expect(body.value[0]).toMatchObject({ Type: 'StartWith', Comment: 'Whole range blocked' });
  });

  it('imports pasted numbers and shows the counts', async () => {
    const importPanel = page.getByRole('region', { name: 'Bulk import' });
    await importPanel.getByLabel('Numbers, one per line').fill('0301111111\n0302222222\n0301111111\nnot a number\n');
    await importPanel.getByRole('button', { name: 'Import' }).click();
    const result = page.getByTestId('import-result');
    await expect.poll(() => result.textContent()).toMatch(/Added 2, duplicates 1, invalid 1/);
    await expect.poll(() => numbersTable().textContent()).toContain('0302222222');
  });

  it('imports a .csv file chosen from disk', async () => {
    const importPanel = page.getByRole('region', { name: 'Bulk import' });
    await importPanel.getByLabel('…or a .csv / .tsv / .txt / .xlsx file').setInputFiles({
      name: 'numbers.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('TelephoneNumber,Type\n0401234567,Equal\n0409,StartWith\n'),
    });
    await importPanel.getByRole('button', { name: 'Import' }).click();
    await expect.poll(() => page.getByTestId('import-result').textContent()).toMatch(/Added 2, duplicates 0, invalid 0/);
    const { body } = await ui.server.json('GET', "/cati/blacklist?$filter=TelephoneNumber eq '0409'");
    expect(body.value[0]).toMatchObject({ Type: 'StartWith' });
  });

  it('checks a number against Equal and StartWith entries', async () => {
    await seed('0419', 'StartWith');
    const check = page.getByRole('region', { name: 'Check a number' });
    await check.getByLabel('Number').fill('0419 555 111');
    await check.getByRole('button', { name: 'Check' }).click();
    // The entry that blocks it, as the table shows it (not an id): the StartWith prefix.
    await expect.poll(() => page.getByTestId('check-result').textContent()).toMatch(/0419 555 111\s+is blocked as it starts with 0419\./);
    expect(await check.getByRole('status').textContent()).toContain('is blocked');
    await check.getByLabel('Number').fill('0123');
    await check.getByRole('button', { name: 'Check' }).click();
    await expect.poll(() => page.getByTestId('check-result').textContent()).toContain('is not on the blacklist');
  });

  it("shows the server's error message when a request is refused", async () => {
    await addNumber('call me maybe');
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.first().textContent()).toMatch(/HTTP 400/);
    expect((await alert.first().textContent())!.length).toBeGreaterThan('(HTTP 400)'.length + 5);
    await alert.first().getByRole('button', { name: /^Dismiss/ }).click();
    await expect.poll(() => alert.count()).toBe(0);
  });
});
