import type { BrowserContext, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './axe.ts';
import { startUi, type UiHarness } from './ui-harness.ts';

/**
 * docs/screens.md#truth: loading, empty, failed and offline are four different states on every screen — "Loading…" with
 * `aria-busy` while an answer is awaited (never "nothing found"), a failure said with Retry, the last good data kept
 * and marked out of date; the floor marks its figures stale and stops its times while its stream is down.
 */
let ui: UiHarness;
const now = new Date();
const todayStart = new Date(now.getFullYear(), now.getMonth(), now.getDate());
const todayAt = (fraction: number) => new Date(todayStart.getTime() + Math.floor((now.getTime() - todayStart.getTime()) * fraction)).toISOString();

/** Holds every answer of requests matching `pattern` until `release()`; `reached` resolves when the first arrived. */
async function hold(context: BrowserContext, pattern: string | ((url: URL) => boolean)) {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let reached!: () => void;
  const arrived = new Promise<void>((r) => (reached = r));
  await context.route(pattern, async (route: Route) => {
    reached();
    await released;
    await route.continue().catch(() => undefined);
  });
  return { release, arrived };
}

/** The aggregations of the reports (`/cati/callhistory?$apply=…`). */
const aggregation = (url: URL) => url.pathname === '/cati/callhistory' && url.searchParams.has('$apply');

const fail500 = (route: Route) => route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ error: { code: 'Internal', message: 'Database on fire.' } }) });

beforeAll(async () => {
  ui = await startUi();
  const api = ui.server.json;
  await api('POST', '/cati/surveys', { body: { SurveyId: 'p7001', SurveyName: 'Health', SampleSize: 100, State: 'Open' } });
  const anna = (await api('POST', '/cati/interviewerproperties', { body: { Name: 'anna', DisplayName: 'Anna Berg', Password: 'secret-12' } })).body.InterviewerId;
  const r = await api('POST', '/cati/callhistory', {
    body: { value: [{ Time: todayAt(0.5), SurveyId: 'p7001', InterviewerId: anna, TelephoneNumber: '0301110001', Duration: 95, WaitingTime: 4, ExtendedStatus: 1, CallCenterId: 1 }] },
  });
  expect(r.status).toBe(201);
  const login = await api('POST', '/cati/interviewersessionhistory', { body: { InterviewerId: anna, CallCenterId: 1, LoginTime: new Date(Date.now() - 30 * 60_000).toISOString() } });
  expect(login.status).toBe(201);
});
afterAll(() => ui?.close());

describe('History: loading, failed, offline', () => {
  it('says "Loading…" with aria-busy while the rows are on their way, never "Nothing in this time range"', async () => {
    let held!: Awaited<ReturnType<typeof hold>>;
    const page = await ui.open('history', async (c) => {
      held = await hold(c, '**/cati/callhistory?**');
    });
    await held.arrived;
    const table = page.getByRole('table', { name: 'Calls' });
    await expect.poll(() => table.getAttribute('aria-busy')).toBe('true');
    expect(await page.getByRole('status').filter({ hasText: 'Loading calls…' }).count()).toBe(1);
    expect(await page.getByText(/Nothing in this time range/).count()).toBe(0);
    expect(await page.getByText('0–0 of 0').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    held.release();
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    expect(await table.getAttribute('aria-busy')).toBe('false');
    expect(await table.locator('tbody').textContent()).toContain('Anna Berg');
    expect(await page.getByText(/Loading calls/).count()).toBe(0);
    await page.context().close();
  });

  it('says the server failed and offers Retry; Retry loads the rows', async () => {
    const page = await ui.open('history', async (c) => {
      await c.route('**/cati/callhistory?**', fail500);
    });
    const alert = page.getByRole('alert').filter({ hasText: 'could not be loaded' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Database on fire.');
    expect(await page.getByText(/Nothing in this time range/).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.context().unroute('**/cati/callhistory?**');
    await alert.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Calls' }).locator('tbody').textContent()).toContain('Anna Berg');
    expect(await alert.count()).toBe(0);
    await page.context().close();
  });

  it('says the server cannot be reached when the request never gets an answer', async () => {
    const page = await ui.open('history', async (c) => {
      await c.route('**/cati/callhistory?**', (r) => r.abort('connectionrefused'));
    });
    await page.getByRole('alert').filter({ hasText: 'The server cannot be reached' }).waitFor();
    expect(await page.getByText(/Nothing in this time range/).count()).toBe(0);
    expect(await page.getByRole('table', { name: 'Calls' }).getAttribute('aria-busy')).toBe('false');
    await page.context().close();
  });
});

describe('History shown again while its request hangs', () => {
  it('says "Loading…" with aria-busy, not the earlier failure nor the earlier "Nothing in this time range"', async () => {
    let mode: 'fail' | 'hold' | 'pass' = 'fail';
    let release = () => {};
    let held = Promise.resolve();
    let reached = 0;
    const holdNext = () => {
      held = new Promise<void>((r) => (release = r));
      mode = 'hold';
    };
    const page = await ui.open('history', async (c) => {
      await c.route('**/cati/callhistory?**', async (route) => {
        if (mode === 'fail') return fail500(route);
        reached++;
        if (mode === 'hold') await held;
        await route.continue().catch(() => undefined);
      });
    });
    const table = page.getByRole('table', { name: 'Calls' });
    const failed = page.getByRole('alert').filter({ hasText: 'could not be loaded' });
    const nothing = page.getByText(/Nothing in this time range/);
    const nav = page.getByRole('navigation', { name: 'Screens' });
    /** Away to the Floor and back to History through the navigation, as a user does. */
    async function awayAndBack() {
      await nav.getByRole('link', { name: 'Floor' }).click();
      await page.getByRole('heading', { name: 'Floor', level: 1 }).waitFor();
      await nav.getByRole('link', { name: 'History' }).click();
      await page.getByRole('heading', { name: 'History', level: 1 }).waitFor();
    }
    /** The screen asked for its rows again, and says it is waiting for them. */
    async function expectLoading(before: number) {
      await expect.poll(() => table.getAttribute('aria-busy')).toBe('true');
      await expect.poll(() => reached).toBeGreaterThan(before);
      expect(await page.getByRole('status').filter({ hasText: 'Loading calls…' }).count()).toBe(1);
      expect(await failed.count()).toBe(0);
      expect(await nothing.count()).toBe(0);
    }

    // 1. After a failure.
    await failed.waitFor();
    holdNext();
    let before = reached;
    await awayAndBack();
    await expectLoading(before);
    expect(await axeViolations(page)).toEqual([]);
    release();
    await expect.poll(() => table.locator('tbody').textContent()).toContain('Anna Berg');
    expect(await table.getAttribute('aria-busy')).toBe('false');

    // 2. After "nothing in this time range" (yesterday had no calls).
    mode = 'pass';
    await page.getByRole('group', { name: 'Time range presets' }).getByRole('button', { name: 'Yesterday' }).click();
    await nothing.waitFor();
    holdNext();
    before = reached;
    await awayAndBack();
    await expectLoading(before);
    release();
    await nothing.waitFor();
    expect(await table.getAttribute('aria-busy')).toBe('false');
    await page.context().close();
  });
});

describe('Surveys today: loading, stale after a failed refresh', () => {
  it('says "Loading…" while the figures are on their way, not "No open surveys"', async () => {
    let held!: Awaited<ReturnType<typeof hold>>;
    const page = await ui.open('surveys-today', async (c) => {
      held = await hold(c, aggregation);
    });
    await held.arrived;
    const table = page.getByRole('table', { name: 'Surveys today' });
    expect(await table.getAttribute('aria-busy')).toBe('true');
    await page.getByRole('status').filter({ hasText: "Loading today's figures…" }).waitFor();
    expect(await page.getByText(/No open surveys/).count()).toBe(0);
    expect(await table.locator('tbody tr').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    held.release();
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    expect(await table.getAttribute('aria-busy')).toBe('false');
    // One clock format: the floor's 24-hour time, never "AM"/"PM".
    expect(await page.locator('.as-of').textContent()).toMatch(/as of \d\d:\d\d$/);
    await page.context().close();
  });

  it('keeps the last figures, marked out of date, when a refresh fails; Retry brings them back', async () => {
    const page = await ui.open('surveys-today');
    const table = page.getByRole('table', { name: 'Surveys today' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    await page.context().route(aggregation, (r) => r.abort('connectionrefused'));
    await page.getByRole('button', { name: 'Refresh' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'The server cannot be reached' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('(out of date)');
    expect(await table.locator('tbody tr').count()).toBe(1);
    expect(await table.locator('tbody').getAttribute('class')).toContain('stale');
    // The failure is said once, in place: no notice repeats it.
    expect(await page.locator('.notice').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.context().unroute(aggregation);
    await alert.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(() => alert.count()).toBe(0);
    // The alert gives way to "Loading…" as soon as Retry asks; the rows are current once the answer is in.
    await expect.poll(() => table.locator('tbody').getAttribute('class')).not.toContain('stale');
    await page.context().close();
  });
});

describe('two screens that cannot reach the server', () => {
  it('going from one to the other keeps the window responsive, and the offline state is said once, in place', async () => {
    const page = await ui.open('surveys-today');
    const nav = page.getByRole('navigation', { name: 'Screens' });
    const show = async (screen: string) => {
      // A frozen window (two offline states waking each other) never takes the click: it times out.
      await nav.getByRole('link', { name: screen, exact: true }).click({ timeout: 10_000 });
      await page.getByRole('heading', { name: screen, level: 1 }).waitFor({ timeout: 10_000 });
    };
    await expect.poll(() => page.getByRole('table', { name: 'Surveys today' }).locator('tbody tr').count()).toBe(1);
    await show('Productivity');
    await page.getByRole('button', { name: 'Show' }).waitFor();
    const offline = (url: URL) => url.pathname.startsWith('/cati/');
    await page.context().route(offline, (r) => r.abort('connectionrefused'));
    const unreachable = page.getByRole('alert').filter({ hasText: 'The server cannot be reached' });
    await page.getByRole('button', { name: 'Show' }).click();
    await unreachable.waitFor();
    await show('Surveys today');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await unreachable.waitFor();
    for (const screen of ['Productivity', 'Surveys today', 'Productivity']) {
      await show(screen);
      await unreachable.waitFor({ timeout: 10_000 });
      // Said in place on the screen shown; the notice area does not repeat it.
      expect(await page.locator('.notice').filter({ hasText: 'cannot be reached' }).count()).toBe(0);
    }
    expect(await page.evaluate(() => document.title.length >= 0)).toBe(true);
    await page.context().close();
  });
});

describe('Floor whose loads fail while its stream is up', () => {
  const indicator = (page: Page) => page.locator('.live-indicator .live-state');

  it('first load: an alert with the server message and Retry, not "Nobody is logged in", and the header does not say Live; Retry shows the rows', async () => {
    const page = await ui.open('floor', async (c) => {
      await c.route('**/cati/floor?**', fail500);
    });
    const alert = page.getByRole('alert').filter({ hasText: 'The floor could not be loaded' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Database on fire.');
    expect(await page.getByText('Nobody is logged in.').count()).toBe(0);
    await expect.poll(() => indicator(page).textContent()).toBe('Not updating (the floor could not be loaded)');
    expect(await axeViolations(page)).toEqual([]);
    await page.context().unroute('**/cati/floor?**');
    await alert.getByRole('button', { name: 'Retry' }).click();
    await page.getByRole('table', { name: 'Interviewers on the floor' }).getByText('Anna Berg').waitFor();
    expect(await alert.count()).toBe(0);
    await expect.poll(() => indicator(page).textContent()).toBe('Live');
  });

  it('a later load: the figures are marked stale and the times stop while events still arrive; Retry brings them back', async () => {
    const page = await ui.open('floor');
    const time = page.locator('.floor-table tbody tr .time-in-state');
    await time.waitFor();
    await expect.poll(() => indicator(page).textContent()).toBe('Live');
    await page.context().route('**/cati/floor?**', fail500);
    // An event the floor follows (a new interviewer, who changes no row): the page loads the floor again, and that load fails.
    const created = await ui.server.json('POST', '/cati/interviewerproperties', { body: { Name: 'bert', DisplayName: 'Bert Visser' } });
    expect(created.status).toBe(201);
    const banner = page.getByTestId('floor-stale');
    await banner.waitFor();
    expect(await banner.textContent()).toMatch(/Not updating\. Figures as of \d\d:\d\d:\d\d — out of date; times in state are stopped\..*Database on fire\./);
    expect(await indicator(page).textContent()).toBe('Not updating (the floor could not be loaded)');
    const stopped = await time.textContent();
    await page.waitForTimeout(2200);
    expect(await time.textContent()).toBe(stopped);
    expect(await axeViolations(page)).toEqual([]);
    await page.context().unroute('**/cati/floor?**');
    await banner.getByRole('button', { name: 'Retry now' }).click();
    await expect.poll(() => banner.count()).toBe(0);
    expect(await indicator(page).textContent()).toBe('Live');
    await expect.poll(() => time.textContent(), { timeout: 3000 }).not.toBe(stopped);
  });
});

describe('Floor with its event stream down', () => {
  it('marks its figures stale, stops the times and shows one banner however often it retries', async () => {
    const page: Page = await ui.open('floor', async (c) => {
      await c.route('**/events', (r) => r.abort());
    });
    const banner = page.getByTestId('floor-stale');
    await banner.waitFor();
    expect(await banner.textContent()).toMatch(/Not live\. Figures as of \d\d:\d\d:\d\d — out of date; times in state are stopped\./);
    const time = page.locator('.floor-table tbody tr .time-in-state');
    const first = await time.textContent();
    await page.waitForTimeout(2200);
    expect(await time.textContent()).toBe(first);
    expect(await page.locator('.floor-table').getAttribute('class')).toContain('stale');
    // The floor itself fails too: each retry fails the same way, still one banner and no pile of notices.
    await page.context().route('**/cati/floor?**', (r) => r.abort('connectionrefused'));
    for (let i = 0; i < 3; i++) {
      await banner.getByRole('button', { name: 'Retry now' }).click();
      await page.waitForTimeout(300);
    }
    await expect.poll(() => banner.textContent()).toContain('cannot be reached');
    expect(await page.getByTestId('floor-stale').count()).toBe(1);
    expect(await page.locator('.notice').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    // Back: live again, the banner goes and the times tick.
    await page.context().unroute('**/cati/floor?**');
    await page.context().unroute('**/events');
    await banner.getByRole('button', { name: 'Retry now' }).click();
    await expect.poll(() => page.locator('.live-state').textContent(), { timeout: 10_000 }).toBe('Live');
    await expect.poll(() => banner.count()).toBe(0);
    const later = await time.textContent();
    await expect.poll(() => time.textContent(), { timeout: 3000 }).not.toBe(later);
    await page.context().close();
  });
});

describe('Floor with the server gone', () => {
  it('says once, in its banner, that the server cannot be reached; a change that gets no answer is said not confirmed', async () => {
    const page = await ui.open('floor', async (c) => {
      await c.route('**/events', (r) => r.abort('connectionrefused'));
    });
    const banner = page.getByTestId('floor-stale');
    await expect.poll(() => banner.textContent(), { timeout: 15_000 }).toContain('The server cannot be reached');
    await page.context().route((url) => url.pathname.startsWith('/cati/'), (r) => r.abort('connectionrefused'));
    await banner.getByRole('button', { name: 'Retry now' }).click();
    // Retry failing for the same reason is not said a second time as a notice; a Lock that gets no answer is:
    // the person must learn that it was not confirmed.
    await page.waitForTimeout(1000);
    expect(await page.locator('.notice').count()).toBe(0);
    const anna = page.getByRole('row').filter({ hasText: 'Anna Berg' });
    await anna.getByRole('button', { name: 'Lock anna' }).click();
    await anna.getByRole('button', { name: 'Lock Anna Berg (anna)' }).click();
    const notConfirmed = page.locator('.notice').filter({ hasText: 'The change was not confirmed: the server cannot be reached' });
    await notConfirmed.waitFor();
    expect(await notConfirmed.getAttribute('role')).toBe('alert');
    expect(await banner.textContent()).toContain('The server cannot be reached');
    expect(await page.locator('.notice').count()).toBe(1);
    expect(await page.getByText(/^Locked anna/).count()).toBe(0);
    await page.context().close();
  });
});

describe('a screen whose code cannot be fetched (the server gone)', () => {
  it('says the screen could not be opened, instead of a click that does nothing', async () => {
    const page = await ui.open('floor', async (c) => {
      await c.route('**/assets/HistoryView*.js', (route) => route.abort('connectionrefused'));
    });
    await page.getByRole('link', { name: 'History', exact: true }).click();
    await expect.poll(() => page.getByText(/The History screen could not be opened/).count()).toBe(1);
    expect(page.url()).toContain('#/floor');
    expect(await axeViolations(page)).toEqual([]);
  });
});
