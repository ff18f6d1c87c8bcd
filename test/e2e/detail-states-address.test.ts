import type { BrowserContext, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './axe.ts';
import { startUi, type UiHarness } from './ui-harness.ts';

/**
 * The detail tables with the one resource state (docs/screens.md#truth): "Loading…" while an answer is awaited, never
 * "nothing" — group members, a new group's parents, a new interviewer's call centre, a survey's assignments — and the
 * opened group and survey kept in the address (a reload or a shared link opens the same).
 */
let ui: UiHarness;
let evening: number;

/** Holds every answer of requests matching `pattern` until `release()`; `arrived` resolves when the first came. */
async function hold(context: BrowserContext, pattern: (url: URL) => boolean) {
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

beforeAll(async () => {
  ui = await startUi();
  const api = ui.server.json;
  await api('POST', '/cati/surveys', { body: { SurveyId: 'p8001', SurveyName: 'Mobility', SampleSize: 100, State: 'Open' } });
  evening = (await api('POST', '/cati/groups', { body: { Name: 'Evening' } })).body.GroupId;
  const anna = (await api('POST', '/cati/interviewerproperties', { body: { Name: 'anna.b', DisplayName: 'Anna Berg', ParentGroups: [evening] } })).body.InterviewerId;
  expect((await api('GET', `/cati/interviewers(${anna})/Controller.AssignOnSurvey(surveyId='p8001')`)).status).toBe(200);
});
afterAll(() => ui?.close());

describe('detail tables say "Loading…" while they load', () => {
  it('a group\'s members: Loading, never "No members in this call centre."; then the members', async () => {
    const page = await ui.open('groups');
    await page.getByRole('button', { name: 'Open Evening' }).waitFor();
    const held = await hold(page.context(), (u) => u.pathname.includes('Controller.GetInterviewers'));
    await page.getByRole('button', { name: 'Open Evening' }).click();
    await held.arrived;
    const members = page.getByRole('table', { name: 'Members in this call centre' });
    await expect.poll(() => members.getAttribute('aria-busy')).toBe('true');
    expect(await page.getByRole('status').filter({ hasText: 'Loading the members…' }).count()).toBe(1);
    expect(await page.getByText('No members in this call centre.').count()).toBe(0);
    held.release();
    await expect.poll(() => members.textContent()).toContain('Anna Berg');
    expect(await members.getAttribute('aria-busy')).toBe('false');
    await page.close();
  });

  it('"New group" says Loading while the groups load, never "No other groups."', async () => {
    let held!: Awaited<ReturnType<typeof hold>>;
    const page = await ui.open('groups', async (c) => {
      held = await hold(c, (u) => u.pathname === '/cati/groups');
    });
    await held.arrived;
    const form = page.getByRole('region', { name: 'New group' });
    await expect.poll(() => form.getByRole('status').textContent()).toBe('Loading the groups…');
    expect(await page.getByText('No other groups.').count()).toBe(0);
    held.release();
    await expect.poll(() => form.getByRole('status').count()).toBe(0);
    expect(await form.getByLabel('Evening').count()).toBe(1);
    await page.close();
  });

  it('the new interviewer form says Loading (and cannot be sent) while the call centres load, never "Call centre 1"', async () => {
    let held!: Awaited<ReturnType<typeof hold>>;
    const page = await ui.open('interviewers', async (c) => {
      held = await hold(c, (u) => u.pathname === '/cati/callcenters');
    });
    await held.arrived;
    const form = page.getByRole('region', { name: 'New interviewer' });
    const centre = form.getByLabel('Call centre');
    await expect.poll(() => centre.textContent()).toContain('Loading the call centres…');
    expect(await centre.isDisabled()).toBe(true);
    expect(await form.getByRole('button', { name: 'Create' }).isDisabled()).toBe(true);
    expect(await form.textContent()).not.toContain('Call centre 1');
    held.release();
    await expect.poll(() => centre.isDisabled()).toBe(false);
    expect(await centre.textContent()).not.toContain('Loading');
    await page.close();
  });

  it('a survey\'s assignments: Loading, never "Nobody is assigned"; then the interviewer by display name', async () => {
    const page = await ui.open('surveys');
    await page.getByRole('button', { name: 'Open Mobility' }).waitFor();
    const held = await hold(page.context(), (u) => u.pathname.includes('Controller.GetAssignments'));
    await page.getByRole('button', { name: 'Open Mobility' }).click();
    await held.arrived;
    const resources = page.getByRole('table', { name: 'Assigned groups and interviewers' });
    await expect.poll(() => resources.getAttribute('aria-busy')).toBe('true');
    expect(await page.getByRole('status').filter({ hasText: 'Loading the survey assignments…' }).count()).toBe(1);
    expect(await page.getByText('Nobody is assigned in this call centre.').count()).toBe(0);
    expect(await page.getByText('Nobody can work this survey in this call centre.').count()).toBe(0);
    held.release();
    await expect.poll(() => resources.textContent()).toContain('Anna Berg');
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });
});

describe('the opened group and survey are kept in the address', () => {
  it('a group: opening it puts it in the address; a reload and a shared link open the same group', async () => {
    const page = await ui.open('groups');
    await page.getByRole('button', { name: 'Open Evening' }).click();
    await expect.poll(() => page.evaluate(() => window.location.hash)).toContain(`group=${evening}`);
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { name: 'Group Evening' }).count()).toBe(1);
    await expect.poll(() => page.getByRole('table', { name: 'Members in this call centre' }).textContent()).toContain('Anna Berg');
    await page.close();

    const shared = await ui.open(`groups?group=${evening}`);
    await expect.poll(() => shared.getByRole('heading', { name: 'Group Evening' }).count()).toBe(1);
    await shared.close();
  });

  it('a survey: opening it puts it in the address; a reload and a shared link open the same survey', async () => {
    const page = await ui.open('surveys');
    await page.getByRole('button', { name: 'Open Mobility' }).click();
    await expect.poll(() => page.evaluate(() => window.location.hash)).toContain('survey=p8001');
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { name: 'Mobility (p8001)' }).count()).toBe(1);
    await expect.poll(() => page.getByRole('table', { name: 'Assigned groups and interviewers' }).textContent()).toContain('Anna Berg');
    await page.close();

    const shared = await ui.open('surveys?survey=p8001');
    await expect.poll(() => shared.getByRole('heading', { name: 'Mobility (p8001)' }).count()).toBe(1);
    await shared.close();
  });
});
