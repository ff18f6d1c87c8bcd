import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './axe.ts';
import { startUi, type UiHarness } from './ui-harness.ts';

/** docs/screens.md#truth: the wallboard shows everyone on a TV of any size — it pages through all rows by itself. */
let ui: UiHarness;
const PEOPLE = 61;
const ids: number[] = [];
let dialer: string;

beforeAll(async () => {
  ui = await startUi();
  dialer = (await ui.server.server.ctx.keys.create('dialer', ['cati_integrate'])).key;
  const login = new Date(Date.now() - 3_600_000).toISOString();
  for (let i = 1; i <= PEOPLE; i++) {
    const name = `iv${String(i).padStart(2, '0')}`;
    const id = (await ui.server.json('POST', '/cati/interviewerproperties', { body: { Name: name, DisplayName: `Person ${name}` } })).body.InterviewerId;
    ids.push(id);
    const r = await ui.server.json('POST', '/cati/interviewersessionhistory', { key: dialer, body: { InterviewerId: id, CallCenterId: 1, LoginTime: login } });
    expect(r.status).toBe(201);
    if (i === 1) {
      // A survey with a long name on one row: the widest a row gets, as on a real floor.
      await ui.server.json('POST', '/cati/surveys', { body: { SurveyId: 'p9001', SurveyName: 'Customer satisfaction Q4 - Energy and utilities households', State: 'Open' } });
      const call = { Time: new Date(Date.now() - 120_000).toISOString(), SurveyId: 'p9001', InterviewerId: id, TelephoneNumber: '0201234567', Duration: 60, ExtendedStatus: 1, CallCenterId: 1 };
      expect((await ui.server.json('POST', '/cati/callhistory', { key: dialer, body: call })).status).toBe(201);
    }
  }
});
afterAll(() => ui?.close());

/** Watches the wallboard for `ms`: every name shown, and whether every shown row fitted in the window (down and across). */
async function watchPages(page: Page, ms: number) {
  const seen = new Set<string>();
  let overflow = false;
  const until = Date.now() + ms;
  while (Date.now() < until && seen.size < PEOPLE) {
    const shot = await page.evaluate(() => {
      const rows = [...document.querySelectorAll('.floor-table tbody tr')];
      return {
        names: rows.map((r) => r.querySelector('td')?.textContent?.trim() ?? ''),
        bottom: Math.max(0, ...rows.map((r) => r.getBoundingClientRect().bottom)),
        height: window.innerHeight,
        wide: document.documentElement.scrollWidth > window.innerWidth,
      };
    });
    shot.names.forEach((n) => seen.add(n));
    if (shot.bottom > shot.height || shot.wide) overflow = true;
    await page.waitForTimeout(250);
  }
  return { seen, overflow };
}

// Both screen sizes at once, each in its own browser context: a test mostly waits for the pages to turn.
describe.concurrent('Wallboard pages', () => {
  it.for<[number, number]>([
    [1920, 1080],
    [1280, 720],
  ])('on a %d×%d screen shows every row page by page, each page fitting the screen', async ([width, height], { expect }) => {
    const page = await ui.open('wallboard?every=1');
    await page.setViewportSize({ width, height });
    await page.getByTestId('wall-page').waitFor();
    // Pages turn every second here: on a loaded machine the page line may already say page 2 when read.
    expect(await page.getByTestId('wall-page').textContent()).toMatch(new RegExp(`Page \\d+ of \\d+ · ${PEOPLE} interviewers`));
    const { seen, overflow } = await watchPages(page, 20_000);
    expect(seen.size).toBe(PEOPLE);
    expect(overflow).toBe(false);
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();
  });
});

describe('A live floor that changes order at every page turn', () => {
  it('shows everyone logged in for the whole round in that round; who logs in meanwhile joins at its end', async () => {
    // Pages turn every 2 s: the loop below (a read and, at a turn, two writes) must see every page on a busy machine.
    const page = await ui.open('wallboard?every=2');
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.getByTestId('wall-page').waitFor();
    const pageLine = async () => ((await page.getByTestId('wall-page').textContent().catch(() => '')) ?? '').trim();
    // Wait for a round to begin, then watch it to its end while the floor re-sorts under it: at every page turn the
    // person last in the live order goes on a break (the floor sorts by state: On break first), moving from a page
    // not yet shown to the first one; and one person logs in.
    await expect.poll(pageLine, { timeout: 30_000, interval: 100 }).toMatch(/^Page 1 of/);
    const seen = new Set<string>();
    let onBreak = PEOPLE - 1;
    let lastLine = '';
    let left = false;
    const until = Date.now() + 90_000;
    let newcomer = '';
    while (Date.now() < until) {
      const line = await pageLine();
      const names = await page.evaluate(() => [...document.querySelectorAll('.floor-table tbody tr')].map((r) => r.querySelector('td')?.textContent?.trim() ?? ''));
      if (/^Page 1 of/.test(line)) {
        if (left) break; // the next round began
      } else left = true;
      names.forEach((n) => seen.add(n));
      if (line !== lastLine) {
        lastLine = line;
        const id = ids[onBreak--]!;
        await ui.server.json('POST', '/cati/breakhistory', { key: dialer, body: { InterviewerId: id, Time: new Date(Date.now() - 1000).toISOString(), Duration: null, BreakTypeId: 5, BreakTypeName: 'Coffee' } });
        if (!newcomer) {
          newcomer = 'Person late';
          const late = (await ui.server.json('POST', '/cati/interviewerproperties', { body: { Name: 'late', DisplayName: newcomer, Password: 'pass-1234' } })).body.InterviewerId;
          await ui.server.json('POST', '/cati/interviewersessionhistory', { key: dialer, body: { InterviewerId: late, CallCenterId: 1, LoginTime: new Date().toISOString() } });
        }
      }
      await page.waitForTimeout(150);
    }
    expect(left).toBe(true);
    const missing = Array.from({ length: PEOPLE }, (_, i) => `Person iv${String(i + 1).padStart(2, '0')}`).filter((n) => !seen.has(n));
    expect(missing).toEqual([]);
    expect(onBreak).toBeLessThan(PEOPLE - 3); // the order did change under the round, several times
    expect(seen.has(newcomer)).toBe(true); // joined at the end of the round it logged in during
    await page.context().close();
  }, 150_000);
});
