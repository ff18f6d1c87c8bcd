import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fake, makeEvent } from '../helpers/fake-electron.ts';

vi.mock('electron', async () => (await import('../helpers/fake-electron.ts')).electronModule());

const { runDesktop } = await import('../../main/run-desktop.ts');
const { CONTENT_SECURITY_POLICY, pemFingerprint } = await import('../../main/security.ts');
const { ensureSelfSigned } = await import('../../server/tls.ts');
type Desktop = NonNullable<Awaited<ReturnType<typeof runDesktop>>>;

let dir: string;
let desktop: Desktop;

beforeEach(async () => {
  fake.reset();
  dir = mkdtempSync(join(tmpdir(), 'cati-security-'));
  mkdirSync(join(dir, 'renderer'));
  writeFileSync(join(dir, 'renderer', 'index.html'), '<!doctype html><title>CATI Supervisor</title>');
  writeFileSync(join(dir, 'settings.json'), JSON.stringify({ port: 0, exposeOnLan: false }));
  desktop = (await runDesktop({ userDataDir: join(dir), staticDir: join(dir, 'renderer'), preload: '/p.cjs', autoBackupCheckMs: 0 }))!;
});
afterEach(async () => {
  await desktop.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

const win = () => fake.state.windows[0]!;
const appUrl = () => desktop.appUrl()!;

describe('Window hardening (main/security.ts) through the real handlers', () => {
  it('creates the window isolated, sandboxed, without Node or <webview>', () => {
    expect(win().options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
  });

  it('prevents navigation to a foreign origin and opens an https target in the system browser instead', () => {
    const foreign = win().webContents.dispatch('will-navigate', { url: 'https://evil.example/phish' }, 'https://evil.example/phish');
    expect(foreign.defaultPrevented).toBe(true);
    expect(fake.state.external).toEqual(['https://evil.example/phish']);

    const own = win().webContents.dispatch('will-navigate', { url: `${appUrl()}/#/history` });
    expect(own.defaultPrevented).toBe(false);

    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'http://evil.example/', 'smb://host/share', 'not a url']) {
      expect(win().webContents.dispatch('will-navigate', { url }).defaultPrevented, url).toBe(true);
    }
    expect(fake.state.external).toEqual(['https://evil.example/phish']); // only https goes out, once
  });

  it('prevents redirects away from the app too (will-redirect), including the legacy url argument', () => {
    expect(win().webContents.dispatch('will-redirect', { url: 'https://evil.example/' }).defaultPrevented).toBe(true);
    const legacy = makeEvent();
    win().webContents.emit('will-redirect', legacy, 'http://127.0.0.2:1/');
    expect(legacy.defaultPrevented).toBe(true);
    expect(win().webContents.dispatch('will-redirect', { url: `${appUrl()}/cati/` }).defaultPrevented).toBe(false);
  });

  it('prevents a frame inside the page from navigating away (will-frame-navigate)', () => {
    expect(win().webContents.dispatch('will-frame-navigate', { url: 'https://evil.example/frame', isMainFrame: false }).defaultPrevented).toBe(true);
    expect(win().webContents.dispatch('will-frame-navigate', { url: `${appUrl()}/#/history`, isMainFrame: false }).defaultPrevented).toBe(false);
  });

  it('follows the server when it moves to another port: the old origin becomes foreign', async () => {
    const old = appUrl();
    await desktop.applySettings({ port: 0, exposeOnLan: true, tls: 'off' });
    expect(appUrl()).not.toBe(old);
    expect(win().webContents.dispatch('will-navigate', { url: `${old}/` }).defaultPrevented).toBe(true);
    expect(win().webContents.dispatch('will-navigate', { url: `${appUrl()}/` }).defaultPrevented).toBe(false);
  });

  it('denies window.open, opening only https links externally', () => {
    const open = win().webContents.windowOpenHandler!;
    expect(open({ url: 'https://docs.example/help' })).toEqual({ action: 'deny' });
    expect(open({ url: `${appUrl()}/#/blacklist` })).toEqual({ action: 'deny' });
    expect(open({ url: 'file:///tmp/x' })).toEqual({ action: 'deny' });
    expect(fake.state.external).toEqual(['https://docs.example/help', `${appUrl()}/#/blacklist`].filter((u) => u.startsWith('https:')));
  });

  it('refuses <webview> in every webContents, later ones included', () => {
    expect(win().webContents.dispatch('will-attach-webview', {}, {}, {}).defaultPrevented).toBe(true);
    const other = new fake.electron.BrowserWindow({});
    expect(other.webContents.dispatch('will-attach-webview').defaultPrevented).toBe(true);
    expect(other.webContents.dispatch('will-navigate', { url: 'https://evil.example/' }).defaultPrevented).toBe(true);
  });

  it('grants only the notification permission, and only to the app', () => {
    const session = fake.state.defaultSession;
    const ask = (permission: string, requestingUrl: string) =>
      new Promise<boolean>((resolve) => session.permissionRequest!(win().webContents, permission, resolve, { requestingUrl }));
    return Promise.all([
      expect(ask('notifications', `${appUrl()}/`)).resolves.toBe(true),
      expect(ask('media', `${appUrl()}/`)).resolves.toBe(false),
      expect(ask('geolocation', `${appUrl()}/`)).resolves.toBe(false),
      expect(ask('notifications', 'https://evil.example/')).resolves.toBe(false),
    ]).then(() => {
      expect(session.permissionCheck!(win().webContents, 'notifications', new URL(appUrl()).origin)).toBe(true);
      expect(session.permissionCheck!(win().webContents, 'clipboard-read', new URL(appUrl()).origin)).toBe(false);
      expect(session.permissionCheck!(win().webContents, 'notifications', 'https://evil.example')).toBe(false);
    });
  });

  it('adds the Content-Security-Policy header to the app’s responses only', () => {
    const onHeaders = fake.state.defaultSession.webRequest.headersReceived!;
    const answer = (url: string) =>
      new Promise<any>((resolve) => onHeaders({ url, responseHeaders: { 'content-security-policy': ["default-src *"], 'Content-Type': ['text/html'] } }, resolve));
    return Promise.all([answer(`${appUrl()}/index.html`), answer('https://cdn.example/x.js')]).then(([own, other]) => {
      expect(own.responseHeaders).toEqual({ 'Content-Type': ['text/html'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] });
      expect(other).toEqual({});
      // The renderer's meta tag says the same (in a browser, where no header is added).
      const html = readFileSync(join(import.meta.dirname, '..', '..', 'renderer', 'index.html'), 'utf8');
      for (const directive of ["default-src 'self'", "script-src 'self'", "object-src 'none'", "base-uri 'none'"]) expect(html).toContain(directive);
    });
  });

  it('trusts a certificate error only for the app’s own self-signed certificate on its own origin', async () => {
    await desktop.applySettings({ port: 0, exposeOnLan: true, tls: 'self-signed' });
    expect(appUrl()).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const own = readFileSync(join(dir, 'tls', 'self-signed.crt'), 'utf8');
    const other = (await ensureSelfSigned(join(dir, 'elsewhere'))).cert.toString('utf8');
    expect(pemFingerprint(own)).toBe(desktop.ownFingerprint());

    const decide = (url: string, pem: string) => {
      const event = makeEvent();
      let trusted: boolean | undefined;
      fake.state.app.emit('certificate-error', event, win().webContents, url, 'net::ERR_CERT_AUTHORITY_INVALID', { data: pem }, (t: boolean) => (trusted = t));
      return { prevented: event.defaultPrevented, trusted };
    };
    expect(decide(`${appUrl()}/`, own)).toEqual({ prevented: true, trusted: true });
    expect(decide(`${appUrl()}/`, other)).toEqual({ prevented: false, trusted: false });
    expect(decide('https://evil.example/', own)).toEqual({ prevented: false, trusted: false });
  });
});
