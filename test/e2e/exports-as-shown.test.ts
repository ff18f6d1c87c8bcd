import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUi, type UiHarness } from './ui-harness.ts';

/**
 * docs/screens.md#truth: an export from a screen is the screen — the same rows, the same columns in the same order, names and
 * labels as shown (ids may follow), times in the zone shown with the zone in the header, a file name with the period.
 */
let ui: UiHarness;
const now = new Date();
const todayStart = new Date(now.getFullYear(), now.getMonth(), now.getDate());
const todayAt = (fraction: number) => new Date(todayStart.getTime() + Math.floor((now.getTime() - 60_000 - todayStart.getTime()) * fraction)).toISOString();
const pad = (n: number) => String(n).padStart(2, '0');
const day = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** RFC 4180 CSV (quoted cells, CRLF lines, a BOM) as rows of cells. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const body = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (quoted) {
      if (ch === '"' && body[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\r' && body[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += ch;
  }
  return rows;
}

/** The visible text of a table's header cells and body (and foot) rows; the small-print ids (`.id`) apart. */
function tableText(page: Page, name: string) {
  return page.getByRole('table', { name }).evaluate((table) => {
    const text = (el: Element) => {
      const copy = el.cloneNode(true) as Element;
      copy.querySelectorAll('.id, .sort-mark').forEach((n) => n.remove());
      return (copy.textContent ?? '').replace(/\s+/g, ' ').trim();
    };
    const rows = [...table.querySelectorAll('tbody tr, tfoot tr')].map((tr) => [...tr.querySelectorAll('th, td')].map(text));
    const ids = [...table.querySelectorAll('tbody tr, tfoot tr')].map((tr) => tr.querySelector('.id')?.textContent?.trim() ?? '');
    return { header: [...table.querySelectorAll('thead th')].map(text), rows, ids };
  });
}

async function download(page: Page, button: string) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()]);
  return { name: file.suggestedFilename(), rows: parseCsv(await readFile((await file.path())!, 'utf8')) };
}

beforeAll(async () => {
  ui = await startUi();
  const api = ui.server.json;
  await api('POST', '/cati/surveys', { body: { SurveyId: 'p9001', SurveyName: 'Health, "big" panel', SampleSize: 10, State: 'Open' } });
  await api('POST', '/cati/surveys', { body: { SurveyId: 'p9002', SurveyName: 'Travel', State: 'Open' } });
  const anna = (await api('POST', '/cati/interviewerproperties', { body: { Name: 'anna', DisplayName: 'Anna Berg', Password: 'secret-12' } })).body.InterviewerId;
  const ben = (await api('POST', '/cati/interviewerproperties', { body: { Name: 'ben', DisplayName: 'Ben Cole', Password: 'secret-12' } })).body.InterviewerId;
  const call = (f: number, who: number, survey: string, status: number, phone: string) =>
    ({ Time: todayAt(f), SurveyId: survey, InterviewerId: who, TelephoneNumber: phone, Duration: 95, WaitingTime: 4, ExtendedStatus: status, CallCenterId: 1 });
  const r = await api('POST', '/cati/callhistory', {
    body: { value: [call(0.2, anna, 'p9001', 1, '0301110001'), call(0.4, ben, 'p9002', 5, '0301110002'), call(0.6, anna, 'p9001', 2, '0301110003')] },
  });
  expect(r.status).toBe(201);
});
afterAll(() => ui?.close());

describe('Exports match the screen', () => {
  it('History: the CSV has the table\'s rows and columns as shown, times in the named zone, then the ids', async () => {
    const page = await ui.open('history');
    const table = page.getByRole('table', { name: 'Calls' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(3);
    const shown = await tableText(page, 'Calls');
    const file = await download(page, 'Export CSV');
    const tomorrow = new Date(todayStart.getFullYear(), todayStart.getMonth(), todayStart.getDate() + 1);
    expect(file.name).toBe(`history-calls-${day(todayStart)}_${day(tomorrow)}.csv`);
    const [header, ...rows] = file.rows;
    expect(header!.slice(0, shown.header.length)).toEqual(shown.header);
    expect(header!.slice(shown.header.length)).toEqual(['Survey id', 'Interviewer id', 'Outcome code', 'Call centre id']);
    // The time column names its zone, the zone the screen shows.
    // Its short name when its offset is the same all year (UTC here), else its IANA name (rows may fall either side of a clock change).
    const offset = (at: number, style: 'short' | 'longOffset') => new Intl.DateTimeFormat('en', { timeZone: zone, timeZoneName: style }).formatToParts(at).find((p) => p.type === 'timeZoneName')!.value;
    const year = new Date(now).getUTCFullYear();
    const named = offset(Date.UTC(year, 0, 1), 'longOffset') === offset(Date.UTC(year, 6, 1), 'longOffset') ? offset(Number(now), 'short') : zone;
    expect(header![0]).toBe(`Time (${named})`);
    expect(rows).toHaveLength(shown.rows.length);
    rows.forEach((row, i) => expect(row.slice(0, shown.header.length), `row ${i + 1}`).toEqual(shown.rows[i]));
    expect(rows[0]!.slice(1, 2)).toEqual(['Health, "big" panel (p9001)']);
    expect(rows[0]!.slice(shown.header.length, shown.header.length + 3)).toEqual(['p9001', expect.stringMatching(/^\d+$/), '2']);
    await page.context().close();
  });

  it('Surveys today: the CSV has the table\'s rows (totals last) and columns as shown, the survey id after them', async () => {
    const page = await ui.open('surveys-today');
    const table = page.getByRole('table', { name: 'Surveys today' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(2);
    await expect.poll(() => table.locator('tbody').textContent()).not.toContain('counting');
    const shown = await tableText(page, 'Surveys today');
    const file = await download(page, 'Export CSV');
    expect(file.name).toMatch(new RegExp(`^surveys-today-[\\w-]+-${day(new Date())}\\.csv$`));
    const [header, ...rows] = file.rows;
    expect(header).toEqual([...shown.header, 'Survey id']);
    expect(rows).toHaveLength(shown.rows.length);
    rows.forEach((row, i) => {
      expect(row.slice(0, -1), `row ${i + 1}`).toEqual(shown.rows[i]);
      expect(row.at(-1), `row ${i + 1} id`).toBe(shown.ids[i]);
    });
    expect(rows.at(-1)![0]).toBe('All surveys');
    await page.context().close();
  });
});
