import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fake } from '../helpers/fake-electron.ts';

vi.mock('electron', async () => (await import('../helpers/fake-electron.ts')).electronModule());

const { runDesktop } = await import('../../main/run-desktop.ts');
const { CHANNELS } = await import('../../main/bridge-api.ts');
const { lanAccess } = await import('../../main/lan-access.ts');
const { ensureSelfSigned } = await import('../../server/tls.ts');
type Desktop = NonNullable<Awaited<ReturnType<typeof runDesktop>>>;

// LAN exposure from the desktop (docs/deployment.md#serve, docs/desktop.md#desktop) through the bridge's IPC handlers, as Settings → Server calls
// them: HTTPS with a self-signed certificate made on first use or the user's own files, the URLs per interface
// address, and the plain-HTTP warning.
let dir: string;
let desktop: Desktop;
const call = (name: keyof typeof CHANNELS, ...args: unknown[]) => fake.invoke(CHANNELS[name], `${desktop.appUrl()}/#/settings`, ...args);
const settingsOnDisk = () => JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8'));

/** The SHA-256 fingerprint of the certificate a TLS server on 127.0.0.1:port presents. */
function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.once('error', reject);
  });
}

beforeEach(async () => {
  fake.reset();
  dir = mkdtempSync(join(tmpdir(), 'cati-lan-'));
  mkdirSync(join(dir, 'renderer'));
  writeFileSync(join(dir, 'renderer', 'index.html'), '<!doctype html><title>CATI Supervisor</title>');
  writeFileSync(join(dir, 'settings.json'), JSON.stringify({ port: 0, exposeOnLan: false }));
  desktop = (await runDesktop({ userDataDir: dir, staticDir: join(dir, 'renderer'), preload: '/p.cjs', autoBackupCheckMs: 0 }))!;
});
afterEach(async () => {
  await desktop.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

describe('LAN exposure from the desktop app', () => {
  it('serves HTTPS with a self-signed certificate made on first use (0600), shows its fingerprint, and keeps it across restarts', async () => {
    expect((await call('getSettings')).lan).toBeNull(); // loopback: nothing for LAN clients
    const view = await call('setSettings', { port: 0, exposeOnLan: true, tls: 'self-signed' });
    const port = desktop.server!.running.port;
    expect(view.serverUrl).toBe(`https://0.0.0.0:${port}`);
    expect(view.warning).toBeNull();
    expect(view.lan).toMatchObject({ https: true, certFile: join(dir, 'tls', 'self-signed.crt') });
    expect(view.lan.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(await servedFingerprint(port)).toBe(view.lan.fingerprint); // what clients see is what Settings shows
    expect(statSync(join(dir, 'tls', 'self-signed.key')).mode & 0o777).toBe(0o600);
    for (const u of view.lan.urls) expect(u.url).toMatch(new RegExp(`^https://.+:${port}$`));

    const again = await call('setSettings', { port: 0, exposeOnLan: false, tls: 'self-signed' });
    expect(again.lan).toBeNull();
    const back = await call('setSettings', { port: 0, exposeOnLan: true, tls: 'self-signed' });
    expect(back.lan.fingerprint).toBe(view.lan.fingerprint);
  });

  it('serves the user’s own certificate, and refuses one that does not match its key with a clear message and no server change', async () => {
    const a = await ensureSelfSigned(join(dir, 'own-a'));
    const b = await ensureSelfSigned(join(dir, 'own-b'));
    const before = desktop.appUrl();
    const saved = settingsOnDisk();

    await expect(call('setSettings', { port: 0, exposeOnLan: true, tls: 'own', tlsCertFile: a.certFile, tlsKeyFile: b.keyFile })).rejects.toThrow(
      `The certificate ${a.certFile} does not belong to the private key ${b.keyFile}: choose the key the certificate was made for`,
    );
    await expect(call('setSettings', { port: 0, exposeOnLan: true, tls: 'own', tlsCertFile: join(dir, 'missing.crt'), tlsKeyFile: b.keyFile })).rejects.toThrow(
      /Cannot read the certificate .*missing\.crt \(ENOENT\)/,
    );
    await expect(call('setSettings', { port: 0, exposeOnLan: true, tls: 'own', tlsCertFile: a.certFile })).rejects.toThrow(/both a certificate file and its private key/);
    expect(desktop.appUrl()).toBe(before);
    expect((await fetch(`${before}/healthz`)).status).toBe(200);
    expect(settingsOnDisk()).toEqual(saved);

    const own = await call('setSettings', { port: 0, exposeOnLan: true, tls: 'own', tlsCertFile: a.certFile, tlsKeyFile: a.keyFile });
    expect(own.lan).toMatchObject({ https: true, fingerprint: a.fingerprint, certFile: a.certFile });
    expect(await servedFingerprint(desktop.server!.running.port)).toBe(a.fingerprint);
  });

  it('warns when the API is exposed over plain HTTP, and lists http URLs', async () => {
    const view = await call('setSettings', { port: 0, exposeOnLan: true, tls: 'off' });
    expect(view.warning).toBe('The API is exposed on the local network without TLS: API keys cross the network in clear text.');
    expect(view.lan).toMatchObject({ https: false, fingerprint: null, certFile: null });
    for (const u of view.lan.urls) expect(u.url).toMatch(/^http:\/\//);
  });

  it('lists one URL per interface address, leaving out loopback and link-local IPv6', () => {
    const interfaces = {
      lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true }],
      eth0: [
        { address: 'fe80::1', family: 'IPv6', internal: false },
        { address: '2001:db8::5', family: 'IPv6', internal: false },
        { address: '192.168.1.20', family: 'IPv4', internal: false },
      ],
      wlan0: [{ address: '10.0.0.7', family: 'IPv4', internal: false }],
    } as unknown as Parameters<typeof lanAccess>[1];
    const served = { host: '0.0.0.0', port: 4100, tls: { fingerprint: 'AB:CD', certFile: '/d/tls/self-signed.crt' } };
    expect(lanAccess(served, interfaces)).toEqual({
      urls: [
        { interfaceName: 'eth0', address: '192.168.1.20', family: 'IPv4', url: 'https://192.168.1.20:4100' },
        { interfaceName: 'wlan0', address: '10.0.0.7', family: 'IPv4', url: 'https://10.0.0.7:4100' },
        { interfaceName: 'eth0', address: '2001:db8::5', family: 'IPv6', url: 'https://[2001:db8::5]:4100' },
      ],
      https: true,
      fingerprint: 'AB:CD',
      certFile: '/d/tls/self-signed.crt',
    });
    expect(lanAccess({ ...served, host: '127.0.0.1' }, interfaces)).toBeNull();
  });
});
