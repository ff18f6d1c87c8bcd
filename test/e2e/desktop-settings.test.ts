import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fake } from '../helpers/fake-electron.ts';
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.ts';
import { axeViolations } from './axe.ts';
import { ensureRendererBuilt, launchChromium, RENDERER_DIR } from './ui-harness.ts';

vi.mock('electron', async () => (await import('../helpers/fake-electron.ts')).electronModule());

const { runDesktop } = await import('../../main/run-desktop.ts');
const { CHANNELS } = await import('../../main/bridge-api.ts');
const { ensureSelfSigned } = await import('../../server/tls.ts');
type Desktop = NonNullable<Awaited<ReturnType<typeof runDesktop>>>;

// The desktop app's screens in Chromium: the real renderer served by the real embedded server, and a stand-in for
// the preload script that passes each `window.cati` call to main's real IPC handlers (fake Electron) with the
// page's URL as the sender, as Electron does. Where Electron would reload the window on a new URL (server restart,
// client mode), the test navigates the page to `desktop.appUrl()`.
let browser: Browser;
let dir: string;
let desktop: Desktop;

beforeAll(async () => {
  ensureRendererBuilt();
  browser = await launchChromium();
});
afterAll(() => browser?.close());
beforeEach(async () => {
  fake.reset();
  dir = mkdtempSync(join(tmpdir(), 'cati-desktop-ui-'));
  writeFileSync(join(dir, 'settings.json'), JSON.stringify({ port: 0, exposeOnLan: false }));
  desktop = (await runDesktop({ userDataDir: dir, staticDir: RENDERER_DIR, preload: '/p.cjs', autoBackupCheckMs: 0 }))!;
});
afterEach(async () => {
  await desktop.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

/** A page of the desktop window on `#/<screen>`, its `window.cati` wired to main's handlers. */
async function openWindow(screen: string): Promise<Page> {
  // The embedded server's self-signed certificate is trusted by the app's certificate-error handler (tested apart).
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ignoreHTTPSErrors: true });
  const page = await context.newPage();
  await page.exposeFunction('__catiInvoke', (channel: string, args: unknown[]) => fake.invoke(channel, page.url(), ...args));
  await page.addInitScript((channels: Record<string, string>) => {
    const invoke = (window as unknown as { __catiInvoke: (c: string, a: unknown[]) => Promise<unknown> }).__catiInvoke;
    (window as unknown as { cati: object }).cati = Object.fromEntries(Object.entries(channels).map(([name, channel]) => [name, (...args: unknown[]) => invoke(channel, args)]));
  }, CHANNELS);
  await reload(page, screen);
  return page;
}
/** What Electron does after a restart or switch: the window loads the app's (new) URL. */
async function reload(page: Page, screen: string) {
  await page.goto(`${desktop.appUrl()}/#/${screen}`);
  await page.getByRole('navigation', { name: 'Screens' }).waitFor();
}
const notice = (page: Page) => page.locator('.notice > span').last().textContent();

describe('The desktop app’s Settings in Chromium', () => {
  it('exposes the API on the LAN over HTTPS: the addresses, the certificate’s fingerprint and what to paste; plain HTTP warns', async () => {
    const page = await openWindow('settings');
    const server = page.getByRole('region', { name: 'Server' });
    await expect.poll(() => server.getByText(`Data directory: ${dir}`).count()).toBe(1);
    await server.getByLabel('Expose API on the local network').check();
    await server.getByLabel('Plain HTTP (no encryption)').check();
    expect(await server.getByRole('note').textContent()).toMatch(/API keys and every answer cross the network in clear text/);
    await server.getByLabel('HTTPS with a self-signed certificate (made on first use)').check();
    expect(await server.getByRole('note').count()).toBe(0);
    await server.getByRole('button', { name: 'Save and restart server' }).click();
    await expect.poll(() => notice(page)).toMatch(/Server settings saved/);

    await reload(page, 'settings');
    expect(desktop.appUrl()).toMatch(/^https:/);
    const lan = page.getByTestId('lan-access');
    await expect.poll(() => lan.getByTestId('tls-fingerprint').textContent()).toBe(desktop.ownFingerprint());
    const urls = desktop.settingsView().lan!.urls;
    const port = desktop.server!.running.port;
    if (urls.length === 0) expect(await lan.getByText('no network address other than loopback').count()).toBe(1);
    for (const u of urls) expect(await lan.getByRole('cell', { name: u.url, exact: true }).count()).toBe(1);
    const base = urls[0]?.url ?? 'https://HOST:PORT';
    expect(await lan.getByTestId('lan-script').textContent()).toBe(
      `curl --cacert "${join(dir, 'tls', 'self-signed.crt')}" -H "Authorization: Bearer $CATI_API_KEY" ${base}/cati/blacklist`,
    );
    expect(await lan.getByText(`${base}/cati/`, { exact: true }).count()).toBe(2); // the dialer and Excel / Power BI
    if (urls.length) expect(urls[0]!.url).toMatch(new RegExp(`^https://.+:${port}$`));
    expect(await axeViolations(page)).toEqual([]);
  });

  it('works on another server in client mode: fingerprint compared first, a banner names it, the screens show its data', async () => {
    const pair = await ensureSelfSigned(join(dir, 'remote'));
    const remote: TestServer = await startTestServer({ dataDir: join(dir, 'remote'), tlsCert: pair.certFile, tlsKey: pair.keyFile });
    try {
      await remote.server.ctx.store.run("INSERT INTO blacklist (telephone_number, type, comment, created) VALUES ('31201234567', 'Equal', 'on the other server', ?)", [Date.now()]);
      const page = await openWindow('settings');
      expect(await page.getByTestId('server-banner').textContent()).toMatch(/This computer's server/);
      const connection = page.getByRole('region', { name: 'Connection' });

      await connection.getByLabel('Server address').fill('https://127.0.0.1:1');
      await connection.getByLabel('API key').fill(TEST_API_KEY);
      await connection.getByRole('button', { name: 'Connect' }).click();
      await expect.poll(() => page.getByRole('alert').last().textContent()).toMatch(/https:\/\/127\.0\.0\.1:1 cannot be reached: nothing listens there/);
      expect(desktop.identity().mode).toBe('local');

      await connection.getByLabel('Server address').fill(remote.url);
      await connection.getByRole('button', { name: 'Connect' }).click();
      const question = connection.getByRole('alertdialog', { name: 'Check the certificate' });
      await expect.poll(() => question.getByTestId('pending-fingerprint').textContent()).toBe(pair.fingerprint);
      expect(desktop.identity().mode).toBe('local');
      expect(await axeViolations(page)).toEqual([]);
      await question.getByRole('button', { name: 'It matches: trust it and connect' }).click();
      await expect.poll(() => notice(page)).toBe(`Connected to ${remote.url}.`);

      await reload(page, 'blacklist');
      const banner = page.getByTestId('server-banner');
      expect(await banner.textContent()).toContain(`Connected to another CATI Supervisor: ${remote.url}`);
      expect(await banner.getAttribute('role')).toBe('status');
      await expect.poll(() => page.getByRole('cell', { name: 'on the other server' }).count()).toBe(1);

      await page.evaluate(() => (window.location.hash = '#/settings'));
      const recent = page.getByRole('table', { name: 'Recent servers' });
      await expect.poll(() => recent.getByRole('cell', { name: remote.url, exact: true }).count()).toBe(1);
      expect(await page.getByRole('region', { name: 'Backups' }).textContent()).toMatch(/made on the server's own machine/);
      await page.getByRole('button', { name: "Back to this computer's server" }).click();
      await expect.poll(() => notice(page)).toBe("Back on this computer's server.");
      await reload(page, 'blacklist');
      expect(await page.getByTestId('server-banner').textContent()).toMatch(/This computer's server/);
      expect(await page.getByRole('cell', { name: 'on the other server' }).count()).toBe(0);
    } finally {
      await remote.close();
    }
  });

  it('backs up now, refuses a file that is not ours, and restores only after the confirm step', async () => {
    const page = await openWindow('settings');
    const backups = page.getByRole('region', { name: 'Backups' });
    await backups.getByRole('button', { name: 'Back up now' }).click();
    await expect.poll(() => notice(page)).toMatch(/^Backup cati-\d{8}T\d{6}Z\.sqlite made and verified/);
    const [made] = readdirSync(join(dir, 'backups'));
    await expect.poll(() => backups.getByRole('row', { name: new RegExp(made!.replace(/\./g, '\\.')) }).textContent()).toMatch(/on request/);
    expect(await backups.getByLabel(/Automatic daily backup \(the last 14 are kept\)/).isChecked()).toBe(true);

    writeFileSync(join(dir, 'notes.txt'), 'not a database');
    fake.state.openPaths.push(join(dir, 'notes.txt'));
    await backups.getByRole('button', { name: 'Restore from a file…' }).click();
    await expect.poll(() => page.getByRole('alert').last().textContent()).toMatch(/notes\.txt is not a CATI Supervisor database/);
    expect(await backups.getByRole('alertdialog').count()).toBe(0);

    fake.state.openPaths.push(join(dir, 'backups', made!));
    await backups.getByRole('button', { name: 'Restore from a file…' }).click();
    const confirm = backups.getByRole('alertdialog');
    await expect.poll(() => confirm.textContent()).toMatch(/The current data is replaced by this backup/);
    expect(fake.state.app.relaunchCalls).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
    await confirm.getByRole('button', { name: 'Replace the data and restart' }).click();
    await expect.poll(() => fake.state.app.relaunchCalls.length).toBe(1);
    expect(readdirSync(dir).filter((n) => /^cati\.sqlite\.before-restore-\d{8}T\d{6}Z$/.test(n))).toHaveLength(1);
  });
});
