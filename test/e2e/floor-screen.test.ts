import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './axe.ts';
import { startUi, type UiHarness } from './ui-harness.ts';

let ui: UiHarness;
let page: Page;
let dialer: string;
const ids: Record<string, number> = {};
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const LIVE = { timeout: 5000 };
const ingest = async (path: string, body: unknown) => {
  const r = await ui.server.json('POST', path, { body, key: dialer });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.value?.[0] as number;
};

/**
 * Desktop notifications as granted, recording every `new Notification(…)` in `window.__notes`. The permission is
 * the double's own: Chromium's headless shell answers 'denied' whatever the browser context grants.
 */
async function captureNotifications(context: BrowserContext) {
  await context.addInitScript(() => {
    const w = window as unknown as { __notes: { title: string; body?: string }[]; Notification: unknown };
    w.__notes = [];
    w.Notification = class {
      static readonly permission: NotificationPermission = 'granted';
      static requestPermission(): Promise<NotificationPermission> {
        return Promise.resolve('granted');
      }
      constructor(title: string, options?: NotificationOptions) {
        w.__notes.push({ title, body: options?.body });
      }
    };
  });
}

const row = (name: string) => page.getByRole('table', { name: 'Interviewers on the floor' }).getByRole('row').filter({ hasText: name });
const counter = (label: string) => page.locator('.floor-counters > div').filter({ hasText: label }).locator('dd');
const notes = () => page.evaluate(() => (window as unknown as { __notes: { title: string; body?: string }[] }).__notes);

beforeAll(async () => {
  ui = await startUi();
  dialer = (await ui.server.server.ctx.keys.create('dialer', ['cati_integrate'])).key;
  const api = ui.server.json;
  expect((await api('PATCH', '/cati/callcenters(1)', { body: { TimeZone: 'Asia/Tokyo' } })).status).toBe(200);
  // A second centre in another zone: clock times then name their zone.
  expect((await api('POST', '/cati/callcenters', { body: { Name: 'Lisbon', TimeZone: 'Europe/Lisbon' } })).status).toBe(201);
  const group = (await api('POST', '/cati/groups', { body: { Name: 'Day shift' } })).body.GroupId as number;
  for (const [login, display, groups] of [['anna', 'Anna Berg', [group]], ['ben', 'Ben Cole', []], ['cleo', 'Cleo Diaz', []]] as const) {
    ids[login] = (await api('POST', '/cati/interviewerproperties', { body: { Name: login, DisplayName: display, Password: 'pass-1234', ParentGroups: groups } })).body.InterviewerId;
  }
  ids.group = group;
  await ingest('/cati/surveys', { SurveyId: 'p1', SurveyName: 'One', State: 'Open' });
  const login = Date.now() - 60 * MIN;
  for (const who of ['anna', 'ben', 'cleo']) await ingest('/cati/interviewersessionhistory', { InterviewerId: ids[who], CallCenterId: 1, LoginTime: iso(login) });
  ids.login = login;
  // Break types appear with their first break; give them limits.
  await ingest('/cati/breakhistory', { InterviewerId: ids.cleo, Time: iso(login + MIN), Duration: 60, BreakTypeId: 5, BreakTypeName: 'Coffee' });
  await ingest('/cati/breakhistory', { InterviewerId: ids.cleo, Time: iso(login + 3 * MIN), Duration: 60, BreakTypeId: 6, BreakTypeName: 'Lunch' });
  await api('PATCH', '/cati/breaktypes(5)', { body: { MaxMinutes: 15 } });
  await api('PATCH', '/cati/breaktypes(6)', { body: { MaxMinutes: 20 } });
  page = await ui.open('floor', captureNotifications);
  await page.getByRole('heading', { name: 'Floor', level: 1 }).waitFor();
  await page.locator('.live-state', { hasText: /^Live$/ }).waitFor();
});
afterAll(() => ui?.close());

describe('Floor screen in Chromium', () => {
  it('is the start page: counters and one row per working interviewer, times in the centre\'s zone, labelled', async () => {
    await expect.poll(() => counter('Logged in').textContent(), LIVE).toBe('3');
    expect(await counter('Waiting').textContent()).toBe('3');
    expect(await row('Anna Berg').textContent()).toContain('Waiting');
    const tokyo = new Intl.DateTimeFormat(undefined, { timeZone: 'Asia/Tokyo', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(ids.login);
    expect(await row('Anna Berg').textContent()).toContain(`${tokyo} GMT+9`);
    expect(await page.locator('.floor-zone').textContent()).toContain('Asia/Tokyo');
    expect(await axeViolations(page)).toEqual([]);
  });

  it('shows a call posted through the ingest API without a reload, and its end', async () => {
    await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
    const callId = await ingest('/cati/callhistory', { InterviewerId: ids.anna, Time: iso(Date.now() - 5000), Duration: null, SurveyId: 'p1', TelephoneNumber: '0201234567' });
    await expect.poll(() => row('Anna Berg').textContent(), LIVE).toContain('On call');
    expect(await counter('On call').textContent()).toBe('1');
    expect(await counter('Calls today').textContent()).toBe('1');
    expect(await row('Anna Berg').textContent()).toContain('p1');
    await ui.server.json('PATCH', `/cati/callhistory(${callId})`, { body: { Duration: 4, ExtendedStatus: 1 }, key: dialer });
    await expect.poll(() => counter('Completes today').textContent(), LIVE).toBe('1');
    expect(await row('Anna Berg').textContent()).toContain('Waiting');
    expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
  });

  it('colours a break nearing its limit and one past it (with text), and alerts once per break', async () => {
    await ingest('/cati/breakhistory', { InterviewerId: ids.cleo, Time: iso(Date.now() - 17 * MIN), Duration: null, BreakTypeId: 6, BreakTypeName: 'Lunch' });
    await expect.poll(() => row('Cleo Diaz').getAttribute('class'), LIVE).toBe('level-near');
    expect(await row('Cleo Diaz').textContent()).toContain('nearing the 20-minute limit');
    await ingest('/cati/breakhistory', { InterviewerId: ids.ben, Time: iso(Date.now() - 16 * MIN), Duration: null, BreakTypeId: 5, BreakTypeName: 'Coffee' });
    await expect.poll(() => row('Ben Cole').getAttribute('class'), LIVE).toBe('level-over');
    expect(await row('Ben Cole').textContent()).toContain('over the 15-minute limit');
    expect(await counter('Over break limit').textContent()).toContain('1');
    await expect.poll(() => page.locator('.notice.warning').textContent(), LIVE).toMatch(/Break over limit — Ben Cole: Coffee for 1[56]:\d\d, over its 15-minute limit/);
    await expect.poll(notes, LIVE).toEqual([{ title: 'Break over limit', body: expect.stringMatching(/^Ben Cole: Coffee for 1[56]:\d\d/) }]);
    // More events (the floor reloads) and more ticks: still one alert for this break.
    const callsBefore = Number(await counter('Calls today').textContent());
    await ingest('/cati/callhistory', { InterviewerId: ids.anna, Time: iso(Date.now() - 1000), Duration: null, SurveyId: 'p1', TelephoneNumber: '0201234568' });
    await expect.poll(() => counter('Calls today').textContent(), LIVE).toBe(String(callsBefore + 1));
    expect(await notes()).toHaveLength(1);
    expect(await page.locator('.notice.warning').count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('locks and unlocks an interviewer from the row', async () => {
    await row('Anna Berg').getByRole('button', { name: 'Lock anna' }).click();
    // A confirmation naming the interviewer; Escape cancels it and nothing was locked.
    await page.keyboard.press('Escape');
    expect((await ui.server.json('GET', `/cati/interviewers(${ids.anna})`)).body.IsLocked).toBe(false);
    await row('Anna Berg').getByRole('button', { name: 'Lock anna' }).click();
    await row('Anna Berg').getByRole('button', { name: 'Lock Anna Berg (anna)' }).click();
    await expect.poll(() => row('Anna Berg').getByRole('button', { name: 'Unlock anna' }).count(), LIVE).toBe(1);
    expect((await ui.server.json('GET', `/cati/interviewers(${ids.anna})`)).body.IsLocked).toBe(true);
    expect(await row('Anna Berg').textContent()).toContain('locked');
    await row('Anna Berg').getByRole('button', { name: 'Unlock anna' }).click();
    await row('Anna Berg').getByRole('button', { name: 'Unlock Anna Berg (anna)' }).click();
    await expect.poll(() => row('Anna Berg').getByRole('button', { name: 'Lock anna' }).count(), LIVE).toBe(1);
    expect((await ui.server.json('GET', `/cati/interviewers(${ids.anna})`)).body.IsLocked).toBe(false);
  });

  it('filters by state, group and survey and sorts; the address keeps them over a reload', async () => {
    // This test's own floor: Cleo and Ben on a break (Cleo's the longer), Anna on a call of a survey no other test uses.
    await ingest('/cati/surveys', { SurveyId: 'p5', SurveyName: 'Five', State: 'Open' });
    await ingest('/cati/breakhistory', { InterviewerId: ids.cleo, Time: iso(Date.now() - 14 * MIN), Duration: null, BreakTypeId: 6, BreakTypeName: 'Lunch' });
    await ingest('/cati/breakhistory', { InterviewerId: ids.ben, Time: iso(Date.now() - 4 * MIN), Duration: null, BreakTypeId: 5, BreakTypeName: 'Coffee' });
    await ingest('/cati/callhistory', { InterviewerId: ids.anna, Time: iso(Date.now() - 1000), Duration: null, SurveyId: 'p5', TelephoneNumber: '0201234569' });
    const filters = page.getByRole('search', { name: 'Floor filters' });
    await filters.getByLabel('State').selectOption('OnBreak');
    await expect.poll(() => page.locator('.floor-table tbody tr').count()).toBe(2);
    expect(await counter('Logged in').textContent()).toBe('2');
    await page.getByRole('button', { name: 'Time in state' }).click();
    await page.getByRole('button', { name: 'Time in state' }).click(); // longest first
    expect(await page.locator('.floor-table tbody tr').first().textContent()).toContain('Cleo Diaz');
    expect(page.url()).toContain('state=OnBreak');
    expect(page.url()).toContain('orderby=TimeInState%20desc');
    await page.reload();
    await page.getByRole('heading', { name: 'Floor', level: 1 }).waitFor();
    await expect.poll(() => page.locator('.floor-table tbody tr').count(), LIVE).toBe(2);
    expect(await page.getByRole('search', { name: 'Floor filters' }).getByLabel('State').inputValue()).toBe('OnBreak');
    expect(await page.locator('.floor-table tbody tr').first().textContent()).toContain('Cleo Diaz');

    await page.getByRole('search', { name: 'Floor filters' }).getByLabel('State').selectOption('');
    await page.getByRole('search', { name: 'Floor filters' }).getByLabel('Group').selectOption(String(ids.group));
    await expect.poll(() => page.locator('.floor-table tbody tr').count(), LIVE).toBe(1);
    expect(await page.locator('.floor-table tbody tr').textContent()).toContain('Anna Berg');
    await page.getByRole('search', { name: 'Floor filters' }).getByLabel('Group').selectOption('');
    await page.getByRole('search', { name: 'Floor filters' }).getByLabel('Survey').selectOption('p5');
    await expect.poll(() => page.locator('.floor-table tbody tr').count(), LIVE).toBe(1);
    expect(await page.locator('.floor-table tbody tr').textContent()).toContain('Anna Berg');
    expect(page.url()).toContain('survey=p5');
    await page.getByRole('search', { name: 'Floor filters' }).getByLabel('Survey').selectOption('');
    await expect.poll(() => page.locator('.floor-table tbody tr').count(), LIVE).toBe(3);
  });

  it('says when the stream is down, and goes live again', async () => {
    const other = await ui.open('floor', async (c) => {
      await c.route('**/events', (r) => r.abort());
    });
    await expect.poll(() => other.locator('.live-state').textContent(), LIVE).toMatch(/Reconnecting/);
    // The floor is still shown (loaded directly, then polled).
    await expect.poll(() => other.locator('.floor-table tbody tr').count(), LIVE).toBe(3);
    await other.context().unroute('**/events');
    await expect.poll(() => other.locator('.live-state').textContent(), { timeout: 10_000 }).toBe('Live');
    await other.context().close();
  });
});

describe('Wallboard in Chromium', () => {
  it('shows the counters and rows in large type, read-only, without the navigation', async () => {
    await page.getByRole('link', { name: 'Wallboard view' }).click();
    await page.getByRole('heading', { name: 'Floor — All call centres', level: 1 }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Screens' }).count()).toBe(0);
    await expect.poll(() => page.locator('.floor-table tbody tr').count(), LIVE).toBe(3);
    expect(await page.locator('.floor-table').getByRole('button').count()).toBe(0);
    expect(await counter('Logged in').textContent()).toBe('3');
    expect(await page.locator('.wall-zone').textContent()).toContain('Asia/Tokyo');
    const size = await page.locator('.floor-table td').first().evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
    expect(size).toBeGreaterThanOrEqual(20);
    // Live here too.
    await ingest('/cati/interviewersessionhistory', { InterviewerId: ids.cleo, CallCenterId: 1, LoginTime: iso(ids.login!), LogoutTime: iso(Date.now() - 1000) });
    await expect.poll(() => counter('Logged in').textContent(), LIVE).toBe('2');
    expect(await axeViolations(page)).toEqual([]);
  });
});
