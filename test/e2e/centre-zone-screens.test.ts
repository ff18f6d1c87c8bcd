import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import type { Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as XLSX from 'xlsx';
import { todayIn } from '../../common/time-zones.ts';
import { axeViolations } from './axe.ts';
import { startUi, type UiHarness } from './ui-harness.ts';

/**
 * docs/screens.md#truth on History, Productivity and Activity: times in the call centre's zone (not this computer's), the zone
 * named on screen and in the headers, "today" and the typed From/To read as that zone's wall times (its midnight is
 * what the server is asked for), and each screen's export the table as shown, in that zone, named by the period.
 * The centre is on Pacific/Kiritimati (UTC+14, no DST): its day is never this machine's day.
 */
const ZONE = 'Pacific/Kiritimati';
const SHORT = 'GMT+14';
const DAY = 86_400_000;
let ui: UiHarness;
const now = Date.now();
const [start, end] = todayIn(ZONE, now);
const iso = (ms: number) => new Date(ms).toISOString();
/** The wall date of an instant in the centre's zone: `2026-11-28`. */
const dayIn = (ms: number) => new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(ms);
const inside = start + Math.floor((now - 60_000 - start) / 2);
const outside = start - 3_600_000; // 23:00 yesterday on the centre's clock

/** The shown text of a table: header cells (sort marks left out) and body and foot rows (a list's items joined by `; `). */
function tableText(page: Page, name: string) {
  return page.getByRole('table', { name }).evaluate((table) => {
    const text = (el: Element) => {
      const copy = el.cloneNode(true) as Element;
      copy.querySelectorAll('.sort-mark').forEach((n) => n.remove());
      const items = [...copy.querySelectorAll('li')];
      if (items.length) return items.map((li) => (li.textContent ?? '').trim()).join('; ');
      return (copy.textContent ?? '').replace(/\s+/g, ' ').trim();
    };
    return {
      header: [...table.querySelectorAll('thead th')].map(text),
      rows: [...table.querySelectorAll('tbody tr, tfoot tr')].map((tr) => [...tr.querySelectorAll('th, td')].map(text)),
    };
  });
}

/** RFC 4180 CSV (a BOM first) as rows of cells. */
const parseCsv = (text: string): string[][] => parse(text.replace(/^\uFEFF/, ''));

async function download(page: Page, scope: Page | ReturnType<Page['getByRole']>, button: string): Promise<Download> {
  const [file] = await Promise.all([page.waitForEvent('download'), scope.getByRole('button', { name: button }).click()]);
  return file;
}

/** How the app writes a time in `zone` (the page's locale, 24-hour, seconds). */
const shownTime = (page: Page, at: string) =>
  page.evaluate(([t, zone]) => new Intl.DateTimeFormat(undefined, {
    timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
  }).format(new Date(t!)), [at, ZONE]);

/** The query of every request whose path is `path`, as the page sends them. */
function watchRequests(page: Page, path: string): URLSearchParams[] {
  const seen: URLSearchParams[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname === path) seen.push(url.searchParams);
  });
  return seen;
}

beforeAll(async () => {
  ui = await startUi();
  const api = ui.server.json;
  expect((await api('PATCH', '/cati/callcenters(1)', { body: { TimeZone: ZONE } })).status).toBe(200);
  await api('POST', '/cati/surveys', { body: { SurveyId: 'p8001', SurveyName: 'Harbour', SampleSize: 50, State: 'Open' } });
  const anna = (await api('POST', '/cati/interviewerproperties', { body: { Name: 'anna', DisplayName: 'Anna Berg', Password: 'secret-12' } })).body.InterviewerId;
  const call = (at: number, phone: string) => ({ Time: iso(at), SurveyId: 'p8001', InterviewerId: anna, TelephoneNumber: phone, Duration: 120, WaitingTime: 6, ExtendedStatus: 1, CallCenterId: 1 });
  expect((await api('POST', '/cati/callhistory', { body: { value: [call(inside, '0301110001'), call(outside, '0301110002')] } })).status).toBe(201);
  const session = { InterviewerId: anna, CallCenterId: 1, LoginTime: iso(start + Math.floor((inside - start) / 2)), LogoutTime: iso(inside) };
  expect((await api('POST', '/cati/interviewersessionhistory', { body: { value: [session] } })).status).toBe(201);
});
afterAll(() => ui?.close());

describe("History in the call centre's zone", () => {
  it('asks for that zone\'s today, shows and exports its times named by it; a typed From is read in it', async () => {
    const page = await ui.open('history');
    const sent = watchRequests(page, '/cati/callhistory');
    const table = page.getByRole('table', { name: 'Calls' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    await page.getByText(`Times in ${ZONE}, ${SHORT}`).waitFor();
    const shown = await tableText(page, 'Calls');
    expect(shown.header[0]).toBe(`Time (${SHORT})`);
    expect(shown.rows[0]![0]).toBe(await shownTime(page, iso(inside)));
    const filters = page.getByRole('search', { name: 'History filters' });
    expect(await filters.getByLabel('From').inputValue()).toBe(`${dayIn(start)}T00:00`);
    expect(await filters.getByLabel('To (exclusive)').inputValue()).toBe(`${dayIn(end)}T00:00`);

    const file = await download(page, page, 'Export CSV');
    expect(file.suggestedFilename()).toBe(`history-calls-${dayIn(start)}_${dayIn(end)}.csv`);
    const [header, ...rows] = parseCsv(await readFile((await file.path())!, 'utf8'));
    expect(header!.slice(0, shown.header.length)).toEqual(shown.header);
    expect(rows.map((r) => r.slice(0, shown.header.length))).toEqual(shown.rows);
    expect(await axeViolations(page)).toEqual([]);

    // From typed as the centre's yesterday midnight: the call at 23:00 yesterday there comes in.
    await filters.getByLabel('From').fill(`${dayIn(start - DAY)}T00:00`);
    await filters.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => table.locator('tbody tr').count()).toBe(2);
    expect(sent.at(-1)!.get('$filter')).toContain(`Time ge ${iso(start - DAY)} and Time lt ${iso(end)}`);
    await page.context().close();
  });
});

describe("Productivity in the call centre's zone", () => {
  it("asks for that zone's today and exports the table as shown, named by the period", async () => {
    const page = await ui.open('productivity');
    const sent = watchRequests(page, '/cati/callhistory');
    const table = page.getByRole('table', { name: 'Productivity by interviewer' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    await page.getByText(`Times in ${ZONE}, ${SHORT}`).waitFor();
    // The figures are the centre's today: one call (the one at 23:00 yesterday there is left out).
    const shown = await tableText(page, 'Productivity by interviewer');
    expect(shown.rows[0]!.slice(0, 3)).toEqual(['Anna Berg (anna)', expect.any(String), '1']);
    await page.getByRole('search', { name: 'Productivity filters' }).getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => sent.length).toBeGreaterThan(0);
    expect(sent[0]!.get('$apply')).toContain(`Time ge ${iso(start)} and Time lt ${iso(end)}`);

    const csv = await download(page, page, 'Export CSV');
    expect(csv.suggestedFilename()).toBe(`productivity-${dayIn(start)}_${dayIn(end)}.csv`);
    const [header, ...rows] = parseCsv(await readFile((await csv.path())!, 'utf8'));
    expect(header).toEqual([...shown.header, 'Interviewer id']);
    expect(rows.map((r) => r.slice(0, -1))).toEqual(shown.rows); // the totals row last, as in the table's foot
    expect(rows.at(-1)![0]).toBe('Total');

    const xlsx = await download(page, page, 'Export XLSX');
    expect(xlsx.suggestedFilename()).toBe(`productivity-${dayIn(start)}_${dayIn(end)}.xlsx`);
    const book = XLSX.read(await readFile((await xlsx.path())!));
    const sheet = XLSX.utils.sheet_to_json<unknown[]>(book.Sheets[book.SheetNames[0]!]!, { header: 1, raw: false });
    expect(sheet[0]).toEqual(header);
    expect(sheet.slice(1).map((r) => r.slice(0, -1))).toEqual(shown.rows);
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();
  });
});

describe("Activity in the call centre's zone", () => {
  it('shows and exports its times in that zone, named; From is read as that zone\'s wall time', async () => {
    const page = await ui.open('settings');
    const sent = watchRequests(page, '/admin/audit');
    const section = page.getByRole('region', { name: 'Activity' });
    const table = section.getByRole('table', { name: 'Activity' });
    await table.getByRole('columnheader', { name: `When (${SHORT})` }).waitFor();
    await expect.poll(() => table.locator('tbody tr').count()).toBeGreaterThan(1);
    await section.getByText(`Times in ${ZONE}, ${SHORT}`).waitFor();
    const first = table.locator('tbody tr').first().locator('time');
    expect(await first.textContent()).toBe(await shownTime(page, (await first.getAttribute('datetime'))!));

    const filters = section.getByRole('form', { name: 'Activity filters' });
    await filters.getByLabel('From').fill(`${dayIn(start - DAY)}T00:00`);
    await filters.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => sent.at(-1)?.get('from')).toBe(iso(start - DAY));
    await expect.poll(() => table.getAttribute('aria-busy')).toBe('false');

    const shown = await tableText(page, 'Activity');
    const file = await download(page, section, 'Export CSV');
    expect(file.suggestedFilename()).toBe(`activity-${dayIn(start - DAY)}_now.csv`);
    const [header, ...rows] = parseCsv(await readFile((await file.path())!, 'utf8'));
    expect(header).toEqual([...shown.header, 'Key id', 'Person id', 'Entity id', 'Changes (JSON)']);
    expect(header![0]).toBe(`When (${SHORT})`);
    expect(rows.map((r) => r.slice(0, shown.header.length))).toEqual(shown.rows);
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();
  });
});
