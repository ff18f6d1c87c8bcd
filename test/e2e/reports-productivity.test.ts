import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as XLSX from 'xlsx';
import { axeViolations } from './axe.ts';
import { startUi, type UiHarness } from './ui-harness.ts';

let ui: UiHarness;
let page: Page;
let evening: number;

// Yesterday in the local zone (the browser's, like History's presets): fixed, closed sessions.
const now = new Date();
const at = (hour: number, minute = 0) => new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1, hour, minute).toISOString();
const COLUMNS = [
  'Interviewer', 'Login time', 'Calls', 'Calls / hour', 'Completes', 'Completes / hour', 'Refusal share', 'Talk time', 'Waiting time',
  'Coffee (breaks · min)', 'Lunch (breaks · min)',
];

beforeAll(async () => {
  ui = await startUi();
  const api = ui.server.json;
  await api('POST', '/cati/surveys', { body: { SurveyId: 'p6001', SurveyName: 'Health', SampleSize: 100, State: 'Open' } });
  await api('POST', '/cati/surveys', { body: { SurveyId: 'p6002', SurveyName: 'Travel', SampleSize: 100, State: 'Open' } });
  evening = (await api('POST', '/cati/groups', { body: { Name: 'Evening' } })).body.GroupId;
  const person = async (Name: string, DisplayName: string, ParentGroups: number[] = []) =>
    (await api('POST', '/cati/interviewerproperties', { body: { Name, DisplayName, Password: 'secret-12', ParentGroups } })).body.InterviewerId as number;
  const anna = await person('anna', 'Anna Berg');
  const ben = await person('ben', 'Ben Cole', [evening]);

  const post = async (path: string, value: unknown[]) => expect((await api('POST', path, { body: { value } })).status).toBe(201);
  await post('/cati/interviewersessionhistory', [
    { InterviewerId: anna, CallCenterId: 1, LoginTime: at(8), LogoutTime: at(12) },
    { InterviewerId: ben, CallCenterId: 1, LoginTime: at(13), LogoutTime: at(15) },
  ]);
  const call = (who: number, hour: number, status: number, survey = 'p6001', duration = 225, waiting = 75) =>
    ({ Time: at(hour, 10), SurveyId: survey, InterviewerId: who, TelephoneNumber: '0611', ExtendedStatus: status, Duration: duration, WaitingTime: waiting, CallCenterId: 1 });
  await post('/cati/callhistory', [
    // Anna: 8 calls (4 completes, 2 refusals, 2 no answer), 30 min talk, 10 min waiting.
    ...[1, 1, 1, 1, 5, 5, 2, 2].map((s, i) => call(anna, 8 + (i % 4), s)),
    // Ben: 4 calls on Travel (1 complete, 2 refusals, 1 busy).
    ...[1, 5, 5, 3].map((s) => call(ben, 13, s, 'p6002', 60, 15)),
    // Today: outside the range.
    { ...call(anna, 0, 1), Time: new Date(Date.now() - 60_000).toISOString() },
  ]);
  const brk = (who: number, hour: number, type: number, name: string, minutes: number) =>
    ({ Time: at(hour, 30), InterviewerId: who, CallCenterId: 1, BreakTypeId: type, BreakTypeName: name, Duration: minutes * 60 });
  await post('/cati/breakhistory', [brk(anna, 9, 1, 'Coffee', 5), brk(anna, 10, 1, 'Coffee', 5), brk(anna, 11, 2, 'Lunch', 30), brk(ben, 14, 1, 'Coffee', 10)]);
  // Left open by the dialer at 14:45: counted to Ben's logout at 15:00 (15 minutes), not as 0.
  await post('/cati/breakhistory', [{ ...brk(ben, 14, 2, 'Lunch', 0), Time: at(14, 45), Duration: null }]);
});
// Each test starts from yesterday's report as a fresh link opens it (no group, survey or sort chosen), whatever the one before chose.
beforeEach(async () => {
  await page?.context().close();
  page = await ui.open('productivity?range=yesterday');
  await page.getByRole('heading', { name: 'Productivity', level: 1 }).waitFor();
});
afterAll(() => ui?.close());

const table = () => page.getByRole('table', { name: 'Productivity by interviewer' });
const bodyRows = () => table().locator('tbody tr').evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent!.trim())));
const totals = () => table().locator('tfoot tr').evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent!.trim())));
const ANNA = ['Anna Berg (anna)', '4:00', '8', '2.0', '4', '1.0', '25%', '0:30', '0:10', '2 · 10', '1 · 30'];
const BEN = ['Ben Cole (ben)', '2:00', '4', '2.0', '1', '0.5', '50%', '0:04', '0:01', '1 · 10', '1 · 15'];
const TOTAL = ['Total', '6:00', '12', '2.0', '5', '0.8', '33%', '0:34', '0:11', '3 · 20', '2 · 45'];

describe('Productivity', () => {
  it('shows per interviewer login time, calls, completes, rates, refusal share, talk, waiting and breaks by type, with totals', async () => {
    await expect.poll(bodyRows).toEqual([ANNA, BEN]);
    expect((await table().locator('thead th').allTextContents()).map((t) => t.replace(/[▲▼]/, ''))).toEqual(COLUMNS);
    expect(await totals()).toEqual([TOTAL]);
    expect(await page.getByRole('group', { name: 'Time range presets' }).getByRole('button', { name: 'Yesterday' }).getAttribute('aria-pressed')).toBe('true');
    expect(await axeViolations(page)).toEqual([]);
  });

  it('sorts by a column (both directions), kept in the address', async () => {
    await expect.poll(bodyRows).toEqual([ANNA, BEN]);
    const header = table().getByRole('columnheader', { name: 'Completes / hour' });
    await header.getByRole('button').click();
    await expect.poll(bodyRows).toEqual([BEN, ANNA]);
    await header.getByRole('button').click();
    await expect.poll(bodyRows).toEqual([ANNA, BEN]);
    expect(await header.getAttribute('aria-sort')).toBe('descending');
    await expect.poll(() => page.url()).toContain('orderby=CompletesPerHour%20desc');
  });

  it('draws completes per hour by interviewer, with a summary for screen readers', async () => {
    const chart = page.getByRole('img', { name: /^Completes per login hour/ });
    expect(await chart.evaluate((el) => el.tagName)).toBe('CANVAS');
    await expect.poll(() => chart.getAttribute('aria-label')).toBe('Completes per login hour by interviewer, 2 shown; highest Anna Berg (anna) with 1.0.');
    // Every interviewer listed is charted: the caption claims no subset.
    expect(await page.getByRole('figure').locator('figcaption').textContent()).toBe('Completes per login hour by interviewer (highest first)');
  });

  it('narrows to a group and to a survey; filters survive a reload', async () => {
    await expect.poll(bodyRows).toEqual([ANNA, BEN]);
    const filters = page.getByRole('search', { name: 'Productivity filters' });
    await filters.getByLabel('Group').selectOption({ label: 'Evening' });
    await filters.getByRole('button', { name: 'Show' }).click();
    await expect.poll(bodyRows).toEqual([BEN]);
    expect(page.url()).toContain(`group=${evening}`);
    await page.reload();
    await expect.poll(bodyRows).toEqual([BEN]);
    expect(await page.getByLabel('Group').inputValue()).toBe(String(evening));
    expect(page.url()).toContain('range=yesterday');

    await page.getByLabel('Group').selectOption('');
    await page.getByLabel('Survey').selectOption('p6001');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(bodyRows).toEqual([ANNA]);
  });

  it('exports the table as CSV and XLSX (totals last)', async () => {
    await expect.poll(bodyRows).toEqual([ANNA, BEN]);
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    // The file name says which period: yesterday (local days), start inclusive, end exclusive.
    const day = (offset: number) => {
      const d = new Date();
      d.setDate(d.getDate() + offset);
      return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    };
    expect(csv.suggestedFilename()).toBe(`productivity-${day(-1)}_${day(0)}.csv`);
    // The table as shown: its headers and cells in their order, the totals row last, then the interviewer id.
    const lines = (await readFile((await csv.path())!, 'utf8')).replace(/^\uFEFF/, '').trimEnd().split('\r\n');
    const ids = (await ui.server.json('GET', '/cati/interviewers?$orderby=Name')).body.value.map((i: { InterviewerId: number }) => String(i.InterviewerId));
    expect(lines.map((l) => l.split(','))).toEqual([[...COLUMNS, 'Interviewer id'], [...ANNA, ids[0]], [...BEN, ids[1]], [...TOTAL, '']]);

    const [xlsx] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export XLSX' }).click()]);
    expect(xlsx.suggestedFilename()).toBe(`productivity-${day(-1)}_${day(0)}.xlsx`);
    const book = XLSX.read(await readFile((await xlsx.path())!));
    const sheet = XLSX.utils.sheet_to_json<unknown[]>(book.Sheets[book.SheetNames[0]!]!, { header: 1, raw: false });
    expect(sheet[0]).toEqual([...COLUMNS, 'Interviewer id']);
    expect(sheet[1]!.slice(0, -1)).toEqual(ANNA);
    expect(sheet[3]![0]).toBe('Total');
    // Figures are typed cells Excel sums and sorts: numbers with their formats, durations as fractions of a day.
    const cells = book.Sheets[book.SheetNames[0]!]!;
    expect(['B2', 'C2', 'D2', 'E2', 'F2', 'G2', 'H2', 'I2'].map((a) => cells[a]?.t)).toEqual(Array(8).fill('n'));
    expect(cells.C2!.v).toBe(8);
    expect(cells.B2!.v).toBeCloseTo(4 / 24, 9);
    expect(cells.G2!.v).toBeCloseTo(0.25, 9);
    expect(cells.A2!.t).toBe('s');
  });
});
