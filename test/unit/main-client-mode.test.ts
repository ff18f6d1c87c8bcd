import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.ts';
import { fake } from '../helpers/fake-electron.ts';

vi.mock('electron', async () => (await import('../helpers/fake-electron.ts')).electronModule());

const { runDesktop } = await import('../../main/run-desktop.ts');
const { CHANNELS } = await import('../../main/bridge-api.ts');
const { startClientProxy } = await import('../../main/client-proxy.ts');
const { ensureSelfSigned } = await import('../../server/tls.ts');
type Desktop = NonNullable<Awaited<ReturnType<typeof runDesktop>>>;

// Client mode (docs/desktop.md#desktop) with two real servers: this computer's desktop app (fake Electron, real embedded
// server) and another CATI Supervisor serving HTTPS with its own self-signed certificate. Everything goes through
// the bridge's IPC handlers, as the Settings → Connection screen calls them.
let dir: string;
let remote: TestServer;
let remoteFingerprint: string;
let desktop: Desktop;
/** What main printed to the console during the test (no key may appear there). */
let printed: string[];

async function startDesktop(): Promise<Desktop> {
  return (await runDesktop({ userDataDir: join(dir, 'user'), staticDir: join(dir, 'renderer'), preload: '/p.cjs', autoBackupCheckMs: 0 }))!;
}
/** A bridge call from the window's page. */
const call = (name: keyof typeof CHANNELS, ...args: unknown[]) => fake.invoke(CHANNELS[name], `${desktop.appUrl()}/#/settings`, ...args);
const settingsOnDisk = () => JSON.parse(readFileSync(join(dir, 'user', 'settings.json'), 'utf8'));

beforeEach(async () => {
  fake.reset();
  printed = [];
  for (const method of ['log', 'info', 'warn', 'error'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void printed.push(args.map(String).join(' ')));
  }
  dir = mkdtempSync(join(tmpdir(), 'cati-client-mode-'));
  mkdirSync(join(dir, 'renderer'));
  writeFileSync(join(dir, 'renderer', 'index.html'), '<!doctype html><title>CATI Supervisor</title>');
  mkdirSync(join(dir, 'user'));
  writeFileSync(join(dir, 'user', 'settings.json'), JSON.stringify({ port: 0, exposeOnLan: false }));
  const pair = await ensureSelfSigned(join(dir, 'remote'));
  remoteFingerprint = pair.fingerprint;
  remote = await startTestServer({ dataDir: join(dir, 'remote'), tlsCert: pair.certFile, tlsKey: pair.keyFile });
  desktop = await startDesktop();
});
afterEach(async () => {
  await desktop.shutdown();
  await remote.close();
  vi.restoreAllMocks();
  expect(printed.join('\n')).not.toContain(TEST_API_KEY);
  rmSync(dir, { recursive: true, force: true });
});

/** Connects to the remote the way the screen does: first answer, compare the fingerprint, accept. */
async function connectToRemote() {
  const first = await call('connect', { url: remote.url, key: TEST_API_KEY });
  expect(first).toMatchObject({ status: 'confirm-certificate', fingerprint: remoteFingerprint });
  return call('connect', { url: remote.url, key: TEST_API_KEY, acceptFingerprint: first.fingerprint });
}

describe('Client mode: the window works on another CATI Supervisor through the pinned local proxy', () => {
  it('asks to compare the fingerprint first, then switches, and the API works on the remote’s data through the proxy', async () => {
    const localUrl = desktop.appUrl()!;
    const first = await call('connect', { url: `${remote.url}/`, key: TEST_API_KEY });
    expect(first.status).toBe('confirm-certificate');
    expect(first.message).toContain(remoteFingerprint);
    expect(desktop.identity().mode).toBe('local'); // nothing switched before the user accepted

    const done = await call('connect', { url: remote.url, key: TEST_API_KEY, acceptFingerprint: first.fingerprint });
    expect(done.status).toBe('connected');
    expect(done.view.current).toEqual({ mode: 'remote', url: remote.url, fingerprint: remoteFingerprint });
    const proxyUrl = desktop.appUrl()!;
    expect(proxyUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(fake.state.windows[0]!.loaded.at(-1)).toBe(proxyUrl);
    await expect(fetch(`${localUrl}/healthz`)).rejects.toThrow(); // the embedded server is closed

    // The page's session: the proxy and a key of its own, never the remote server's key; the banner's identity.
    const session = await call('getSession');
    expect(session).toMatchObject({ baseUrl: proxyUrl, server: { mode: 'remote', url: remote.url, fingerprint: remoteFingerprint } });
    expect(session.apiKey).not.toBe(TEST_API_KEY);
    expect(JSON.stringify(fake.state.windows[0]!.loaded)).not.toContain(session.apiKey); // never in a URL

    const created = await fetch(`${proxyUrl}/cati/blacklist`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${session.apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ TelephoneNumber: '0201234567', Comment: 'through the proxy' }),
    });
    expect(created.status).toBe(201);
    expect(await remote.server.ctx.store.all('SELECT comment AS "Comment" FROM blacklist')).toEqual([{ Comment: 'through the proxy' }]);
    const list = await fetch(`${proxyUrl}/cati/blacklist`, { headers: { Authorization: `Bearer ${session.apiKey}` } });
    expect((await list.json()).value).toHaveLength(1);
    expect((await fetch(`${proxyUrl}/`)).status).toBe(200); // this app's renderer, same origin as the API

    // The proxy accepts only its session key: neither none nor the remote's key itself.
    expect((await fetch(`${proxyUrl}/cati/blacklist`)).status).toBe(401);
    expect((await fetch(`${proxyUrl}/cati/blacklist`, { headers: { Authorization: `Bearer ${TEST_API_KEY}` } })).status).toBe(401);

    // Remembered: URL, pin, the key only encrypted by the OS; the screen never sees a key.
    const stored = settingsOnDisk();
    expect(stored.connectTo).toBe(remote.url);
    expect(stored.recentServers[0]).toMatchObject({ url: remote.url, fingerprint: remoteFingerprint });
    expect(JSON.stringify(stored)).not.toContain(TEST_API_KEY);
    const view = await call('getConnection');
    expect(view.recent).toEqual([{ url: remote.url, fingerprint: remoteFingerprint, lastUsedAt: expect.any(String), hasKey: true }]);
    await expect(call('forgetServer', remote.url)).rejects.toThrow(/switch to another server first/);
    expect(view.problem).toBeNull();

    // Back home: the embedded server again, on this computer's data.
    const home = await call('useLocalServer');
    expect(home.current.mode).toBe('local');
    expect((await fetch(`${desktop.appUrl()}/healthz`)).status).toBe(200);
    expect(settingsOnDisk().connectTo).toBeNull();
    expect(printed.join('\n')).not.toContain(session.apiKey);
  });

  it('reconnects to a remembered server with its stored key, and refuses it once its certificate changed', async () => {
    await connectToRemote();
    await call('useLocalServer');
    const again = await call('connect', { url: remote.url });
    expect(again.status).toBe('connected');
    await call('useLocalServer');

    // The server now presents another certificate than the pinned one (tampered pin = the same situation).
    desktop.settings.recentServers[0]!.fingerprint = 'AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99';
    const refused = await call('connect', { url: remote.url });
    expect(refused.status).toBe('refused');
    expect(refused.message).toMatch(/certificate changed: it presents .* but AA:BB:.* was pinned/);
    expect(desktop.identity().mode).toBe('local');
    expect((await fetch(`${desktop.appUrl()}/healthz`)).status).toBe(200);
  });

  it('answers a clear message and changes nothing for an unreachable server, a wrong key or a malformed address', async () => {
    const before = desktop.appUrl();
    const unreachable = await call('connect', { url: 'https://127.0.0.1:1', key: TEST_API_KEY });
    expect(unreachable).toEqual({ status: 'refused', message: 'The server https://127.0.0.1:1 cannot be reached: nothing listens there.' });

    const wrongKey = await call('connect', { url: remote.url, key: 'not-the-right-key-at-all', acceptFingerprint: remoteFingerprint });
    expect(wrongKey.status).toBe('refused');
    expect(wrongKey.message).toMatch(/refused the API key \(401\)/);
    expect(wrongKey.message).not.toContain('not-the-right-key-at-all');

    const wrongPin = await call('connect', { url: remote.url, key: TEST_API_KEY, acceptFingerprint: 'AB:CD' });
    expect(wrongPin.status).toBe('confirm-certificate'); // accepting another fingerprint than the one shown connects nothing

    for (const url of ['ftp://x', 'https://user:pw@127.0.0.1:1', 'https://127.0.0.1:1/cati/', 'nonsense']) {
      expect((await call('connect', { url, key: TEST_API_KEY })).status, url).toBe('refused');
    }
    expect(desktop.appUrl()).toBe(before);
    expect(desktop.identity().mode).toBe('local');
    expect(settingsOnDisk().recentServers ?? []).toEqual([]);
  });

  it('sends no key to a server whose certificate the user has not accepted yet', async () => {
    const seen: (string | undefined)[] = [];
    const pair = await ensureSelfSigned(join(dir, 'listener'));
    const listener = createHttpsServer({ cert: pair.cert, key: pair.key }, (req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"ok"}');
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    try {
      const url = `https://127.0.0.1:${(listener.address() as AddressInfo).port}`;
      expect((await call('connect', { url, key: TEST_API_KEY })).status).toBe('confirm-certificate');
      expect((await call('connect', { url, key: TEST_API_KEY, acceptFingerprint: remoteFingerprint })).status).toBe('confirm-certificate');
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((h) => h === undefined)).toBe(true);
    } finally {
      listener.closeAllConnections();
      await new Promise((resolve) => listener.close(resolve));
    }
  });

  it('asks before sending a key over plain HTTP', async () => {
    const plain = await startTestServer();
    try {
      const first = await call('connect', { url: plain.url, key: TEST_API_KEY });
      expect(first.status).toBe('confirm-plain-http');
      expect(first.message).toMatch(/clear text/);
      expect(desktop.identity().mode).toBe('local');
      const done = await call('connect', { url: plain.url, key: TEST_API_KEY, acceptPlainHttp: true });
      expect(done.view.current).toEqual({ mode: 'remote', url: plain.url, fingerprint: null });
      await call('useLocalServer');
    } finally {
      await plain.close();
    }
  });

  it('the proxy answers 502 with a sentence when the remote cannot be reached or shows another certificate', async () => {
    const problems: string[] = [];
    const proxy = await startClientProxy({ remoteUrl: remote.url, remoteKey: TEST_API_KEY, fingerprint: 'AA:BB', staticDir: join(dir, 'renderer'), onRemoteError: (m) => problems.push(m) });
    try {
      const res = await fetch(`${proxy.localUrl}/cati/`, { headers: { Authorization: `Bearer ${proxy.sessionKey}` } });
      expect(res.status).toBe(502);
      expect((await res.json()).message).toMatch(/certificate changed.*Not connected/);
      expect(problems).toHaveLength(1);
      const down = await startClientProxy({ remoteUrl: 'http://127.0.0.1:1', remoteKey: TEST_API_KEY, fingerprint: null, staticDir: join(dir, 'renderer') });
      const unreachable = await fetch(`${down.localUrl}/cati/`, { headers: { Authorization: `Bearer ${down.sessionKey}` } });
      await down.close();
      expect(unreachable.status).toBe(502);
      expect((await unreachable.json()).message).toBe('The server http://127.0.0.1:1 cannot be reached: nothing listens there.');
    } finally {
      await proxy.close();
    }
  });

  it('tells the Connection screen when the server stops answering, without switching anywhere', async () => {
    await connectToRemote();
    const session = await call('getSession');
    await remote.close();
    remote = await startTestServer(); // something else, so afterEach has a server to close
    const res = await fetch(`${session.baseUrl}/cati/blacklist`, { headers: { Authorization: `Bearer ${session.apiKey}` } });
    expect(res.status).toBe(502);
    const view = await call('getConnection');
    expect(view.current.mode).toBe('remote');
    expect(view.problem).toMatch(/^The server https:\/\/127\.0\.0\.1:\d+ cannot be reached: /);
  });

  it('at start, reconnects to the server it was left on; when that fails it asks, never switching silently', async () => {
    await connectToRemote();
    await desktop.shutdown();
    fake.reset();
    desktop = await startDesktop();
    expect(desktop.identity()).toEqual({ mode: 'remote', url: remote.url, fingerprint: remoteFingerprint });
    expect(fake.state.dialogs).toEqual([]);

    await desktop.shutdown();
    await remote.close();
    remote = await startTestServer(); // something else, so afterEach has a server to close
    fake.reset();
    fake.state.messageBoxResponses.push(0); // "Use this computer's server"
    desktop = await startDesktop();
    const asked = fake.state.dialogs.find((d) => d.kind === 'message')!;
    expect(asked.options.message).toMatch(/^Cannot connect to https:\/\/127\.0\.0\.1:\d+$/);
    expect(asked.options.detail).toMatch(/cannot be reached: nothing listens there/);
    expect(desktop.identity().mode).toBe('local');
    expect(settingsOnDisk().connectTo).toBeNull();
  });
});
