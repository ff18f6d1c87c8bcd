import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './axe.ts';
import { startUi, type UiHarness } from './ui-harness.ts';

/** docs/screens.md#truth: the wallboard shows everyone on a TV of any size — it pages through all rows by itself. */
let ui: UiHarness;
const PEOPLE = 61;

beforeAll(async () => {
  ui = await startUi();
  const dialer = (await ui.server.server.ctx.keys.create('dialer', ['cati_integrate'])).key;
  const login = new Date(Date.now() - 3_600_000).toISOString();
  for (let i = 1; i <= PEOPLE; i++) {
    const name = `iv${String(i).padStart(2, '0')}`;
    const id = (await ui.server.json('POST', '/cati/interviewerproperties', { body: { Name: name, DisplayName: `Person ${name}`, Password: 'pass-1234' } })).body.InterviewerId;
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

describe('Wallboard pages', () => {
  it.each([
    [1920, 1080],
    [1280, 720],
  ])('on a %d×%d screen shows every row page by page, each page fitting the screen', async (width, height) => {
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
