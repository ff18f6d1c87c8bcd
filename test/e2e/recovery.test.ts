/**
 * Recovery (docs/screens.md#recovery): the server stops under an open screen and comes back on the same port and
 * data; the screen reloads by itself within 15 s (a call recorded after the return shows without a click), and the
 * "cannot be reached" notices go by themselves.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { ensureRendererBuilt, launchChromium, RENDERER_DIR } from './ui-harness.ts';

const PASSWORD = 'recovery password 8642';
const dataDir = mkdtempSync(join(tmpdir(), 'cati-recovery-'));
let server: TestServer;
let browser: Browser;
let anna: number;

const start = (port = 0) => startTestServer({ staticDir: RENDERER_DIR, dataDir, port });
const call = (phone: string) => ({ Time: new Date(Date.now() - 60_000).toISOString(), SurveyId: 'p3001', InterviewerId: anna, TelephoneNumber: phone, Duration: 95, WaitingTime: 4 });

beforeAll(async () => {
  ensureRendererBuilt();
  server = await start();
  browser = await launchChromium();
  await server.json('POST', '/admin/users', { body: { Name: 'sam', Role: 'supervisor', DisplayName: 'Sam Super', Password: PASSWORD } });
  await server.json('POST', '/cati/surveys', { body: { SurveyId: 'p3001', SurveyName: 'Health', SampleSize: 100, State: 'Open' } });
  anna = (await server.json('POST', '/cati/interviewerproperties', { body: { Name: 'anna', DisplayName: 'Anna Berg', Password: 'secret-12' } })).body.InterviewerId;
  expect((await server.json('POST', '/cati/callhistory', { body: call('0301110001') })).status).toBe(201);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function signedIn(hash: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
  await page.goto(`${server.url}/${hash}`);
  await page.getByLabel('Name').fill('sam');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Screens' }).waitFor();
  return page;
}

describe('the server stops and comes back under an open screen', () => {
  it('History reloads by itself within 15 s and the "cannot be reached" notices go', async () => {
    const page = await signedIn('#/history');
    const table = page.getByRole('tabpanel').getByRole('table');
    await expect.poll(() => table.textContent(), { timeout: 15_000 }).toContain('0301110001');

    const port = Number(new URL(server.url).port);
    await server.server.close();
    // The person asks for something while the server is away: the screen says it cannot be reached.
    await page.getByRole('search', { name: 'History filters' }).getByRole('button', { name: 'Show' }).click();
    const unreachable = page.getByText(/cannot be reached/).first();
    await unreachable.waitFor({ timeout: 15_000 });

    server = await start(port);
    expect(server.url).toContain(`:${port}`);
    expect((await server.json('POST', '/cati/callhistory', { body: call('0301110002') })).status).toBe(201);
    const back = Date.now();
    await expect.poll(() => table.textContent(), { timeout: 15_000 }).toContain('0301110002');
    await expect.poll(() => page.getByText(/cannot be reached/).count(), { timeout: 15_000 - (Date.now() - back) }).toBe(0);
    expect(Date.now() - back).toBeLessThan(15_000);
    // Nothing comes back afterwards (a late failure is not news once the server answered).
    await page.waitForTimeout(2000);
    expect(await page.getByText(/cannot be reached/).count()).toBe(0);
    expect(await page.locator('.notices .notice.error').count()).toBe(0);
    await page.context().close();
  }, 90_000);
});
