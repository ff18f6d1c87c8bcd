import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { fake } from '../helpers/fake-electron.ts';

vi.mock('electron', async () => (await import('../helpers/fake-electron.ts')).electronModule());

const { DesktopApp } = await import('../../main/desktop-app.ts');
const { runDesktop } = await import('../../main/run-desktop.ts');
const { CHANNELS } = await import('../../main/bridge-api.ts');
const { lanWarning } = await import('../../main/embedded-server.ts');

let userDataDir: string;
let staticDir: string;
const apps: InstanceType<typeof DesktopApp>[] = [];

function writeSettingsFile(settings: object) {
  writeFileSync(join(userDataDir, 'settings.json'), JSON.stringify(settings));
}
function newApp() {
  const app = new DesktopApp({ userDataDir, staticDir, preload: '/app/dist/main/preload.cjs', startTimeoutMs: 10_000, autoBackupCheckMs: 0 });
  apps.push(app);
  return app;
}
const trusted = (app: InstanceType<typeof DesktopApp>) => ({ senderFrame: { url: `${app.server!.localUrl}/#/blacklist` } });

beforeEach(() => {
  userDataDir = mkdtempSync(join(tmpdir(), 'cati-desktop-'));
  staticDir = join(userDataDir, 'renderer');
  mkdirSync(staticDir);
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>CATI Supervisor</title>');
  writeSettingsFile({ port: 0, exposeOnLan: false });
  fake.reset();
});

afterEach(async () => {
  for (const app of apps.splice(0)) await app.shutdown();
  vi.restoreAllMocks();
  rmSync(userDataDir, { recursive: true, force: true });
});

describe('Electron main process', () => {
  it('starts the embedded server over userData and opens a sandboxed window on its URL', async () => {
    const app = newApp();
    expect(await app.start()).toBe(true);

    expect(existsSync(join(userDataDir, 'cati.sqlite'))).toBe(true);
    const win = fake.state.windows[0]!;
    expect(win.options.webPreferences).toMatchObject({
      contextIsolation: true,
      nodeIntegration: false,
      sandbox: true,
      preload: '/app/dist/main/preload.cjs',
    });
    expect(win.loaded).toEqual([app.server!.localUrl]);
    await vi.waitFor(() => expect(win.shown).toBe(true)); // shown once ready, not before
    expect(app.server!.localUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const page = await fetch(`${app.server!.localUrl}/`);
    expect(await page.text()).toContain('CATI Supervisor');
  });

  it('hands the page a session key that the API accepts, and refuses callers from other origins', async () => {
    await runDesktop({ userDataDir, staticDir, preload: '/p.cjs' }).then((app) => app && apps.push(app));
    const app = apps[0]!;
    const getSession = fake.state.handlers.get(CHANNELS.getSession)!;

    const session = getSession(trusted(app));
    expect(session.baseUrl).toBe(app.server!.localUrl);
    const withKey = await fetch(`${session.baseUrl}/cati/`, { headers: { Authorization: `Bearer ${session.apiKey}` } });
    expect(withKey.status).not.toBe(401);
    const withoutKey = await fetch(`${session.baseUrl}/cati/`);
    expect(withoutKey.status).toBe(401);

    expect(() => getSession({ senderFrame: { url: 'https://evil.example/' } })).toThrow(/Refused/);
    expect(() => getSession({ senderFrame: null })).toThrow(/Refused/);
  });

  it("runs a scrub in a utility process of its own, which is gone once the scrub is done", async () => {
    const app = newApp();
    expect(await app.start()).toBe(true);
    const { localUrl, sessionKey } = app.server!;
    const auth = { Authorization: `Bearer ${sessionKey}` };
    expect((await fetch(`${localUrl}/cati/blacklist`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ TelephoneNumber: '0205550198' }) })).status).toBe(201);
    const body = new FormData();
    body.append('file', new Blob(['Phone\n0205550198\n0205550199\n']), 'calls.csv');
    const created = await fetch(`${localUrl}/cati/scrubs`, { method: 'POST', headers: auth, body });
    expect(created.status).toBe(202);
    const { Id } = (await created.json()) as { Id: string };
    await vi.waitFor(async () => {
      const job = await (await fetch(`${localUrl}/cati/scrubs('${Id}')`, { headers: auth })).json();
      expect(job).toMatchObject({ State: 'done', Kept: 1, Removed: 1 });
    }, { timeout: 20_000, interval: 100 });
    expect(fake.state.utilityProcesses.map((p) => p.modulePath.split(/[\\/]/).at(-1))).toEqual(['scrub-job-process.js']);
    expect(fake.state.utilityProcesses[0]!.options.serviceName).toBe('CATI Supervisor job');
    await vi.waitFor(() => expect(fake.state.utilityProcesses[0]!.pid).toBeUndefined());
  });

  it('reports a port in use readably and quits when the user declines a free port', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    writeSettingsFile({ port, exposeOnLan: false });
    const box = vi.spyOn(fake.electron.dialog, 'showMessageBox');
    try {
      const app = newApp();
      expect(await app.start()).toBe(false);
      expect(box).toHaveBeenCalledOnce();
      expect(box.mock.calls[0]![0].detail).toContain(`Port ${port} on 127.0.0.1 is already in use`);
      expect(fake.state.windows).toHaveLength(0);

      fake.state.messageBoxResponses.push(0); // "Start on a free port"
      const second = newApp();
      expect(await second.start()).toBe(true);
      expect(second.server!.running.port).not.toBe(port);
    } finally {
      blocker.close();
    }
  });

  it('shows an error box for start failures other than a taken port', async () => {
    const box = vi.spyOn(fake.electron.dialog, 'showErrorBox');
    writeFileSync(join(userDataDir, 'cati.sqlite'), 'this is not a database, just text that is long enough to matter'.repeat(100));
    const app = newApp();
    expect(await app.start()).toBe(false);
    expect(box).toHaveBeenCalledOnce();
    expect(box.mock.calls[0]![1]).toMatch(/database .* cannot be opened|failed to start/);
  });

  it('restarts the server when the settings change, saves them, and reloads the window on the new URL', async () => {
    const app = newApp();
    await app.start();
    const oldUrl = app.server!.localUrl;
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const freePort = (blocker.address() as { port: number }).port;
    await new Promise<void>((resolve) => blocker.close(() => resolve()));

    const view = await app.applySettings({ port: freePort, exposeOnLan: false });

    expect(view).toMatchObject({ port: freePort, exposeOnLan: false, serverUrl: `http://127.0.0.1:${freePort}`, warning: null });
    expect(JSON.parse(readFileSync(join(userDataDir, 'settings.json'), 'utf8'))).toMatchObject({ port: freePort, exposeOnLan: false });
    expect(fake.state.windows[0]!.loaded.at(-1)).toBe(`http://127.0.0.1:${freePort}`);
    expect((await fetch(`http://127.0.0.1:${freePort}/healthz`)).status).toBe(200);
    await expect(fetch(`${oldUrl}/healthz`)).rejects.toThrow();
  });

  it('rejects invalid settings with a message and keeps the running server', async () => {
    const app = newApp();
    await app.start();
    const url = app.server!.localUrl;
    const setSettings = (input: unknown) => app.applySettings(input);

    await expect(setSettings({ port: 70000, exposeOnLan: false })).rejects.toThrow('port must be a whole number from 0 to 65535');
    await expect(setSettings({ port: 0, exposeOnLan: 'yes' })).rejects.toThrow('exposeOnLan must be true or false');
    expect(app.server!.localUrl).toBe(url);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });

  it('closes the server and the database before quitting', async () => {
    const quit = vi.spyOn(fake.electron.app, 'quit');
    const app = (await runDesktop({ userDataDir, staticDir, preload: '/p.cjs' }))!;
    const { running } = app.server!;
    const event = { preventDefault: vi.fn() };

    fake.state.app.emit('before-quit', event);
    await vi.waitFor(() => expect(quit).toHaveBeenCalled());

    expect(event.preventDefault).toHaveBeenCalled();
    await expect(running.ctx.store.value('SELECT 1')).rejects.toThrow(/not open/); // the database is closed
    await expect(fetch(`${running.url}/healthz`)).rejects.toThrow();
  });

  it('warns about LAN exposure without TLS only', () => {
    const server = (host: string, url: string) => ({ host, running: { url } }) as any;
    expect(lanWarning(server('127.0.0.1', 'http://127.0.0.1:4100'))).toBeNull();
    expect(lanWarning(server('0.0.0.0', 'https://0.0.0.0:4100'))).toBeNull();
    expect(lanWarning(server('0.0.0.0', 'http://0.0.0.0:4100'))).toMatch(/clear text/);
  });

  it('uses the same channel names in the preload script as in the bridge contract', () => {
    const preload = readFileSync(new URL('../../main/preload.cts', import.meta.url), 'utf8');
    for (const channel of Object.values(CHANNELS)) expect(preload).toContain(`'${channel}'`);
  });
});
