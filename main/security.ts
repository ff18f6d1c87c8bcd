/**
 * Window and session hardening in one place, after Electron's security checklist
 * (https://www.electronjs.org/docs/latest/tutorial/security): isolated sandboxed renderers without Node, no
 * navigation, redirect, new window or <webview> away from the app's own origin, only the notification
 * permission, a Content-Security-Policy header on the app's responses, and our own self-signed certificate
 * trusted on loopback only. Fuses and asar are set in electron-builder.yml.
 */
import { X509Certificate } from 'node:crypto';
import { shell, type App, type Session, type WebContents } from 'electron';

/** The app's pages may load only from themselves (the renderer's index.html carries the same policy as a meta tag). */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The only permission a page of ours may get (desktop notifications). */
export const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set(['notifications']);

/** Answers whether a URL belongs to the app's current origin (it changes when the server restarts on another port). */
export type AppUrlCheck = (url: string) => boolean;

/** webPreferences of every window: no Node in the page, isolated preload, OS sandbox, no <webview>. */
export function secureWebPreferences(preload: string) {
  return {
    preload,
    contextIsolation: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    sandbox: true,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    spellcheck: false,
  };
}

/** `origin` of a URL, or null when it does not parse. */
function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** An `AppUrlCheck` for the origin `currentUrl()` answers at the moment of the check. */
export function sameOriginAs(currentUrl: () => string | null): AppUrlCheck {
  return (url) => {
    const current = currentUrl();
    const origin = originOf(url);
    return current !== null && origin !== null && origin !== 'null' && origin === originOf(current);
  };
}

/** Opens a link in the system browser when it is an https URL; anything else (file:, javascript:, custom schemes) is dropped. */
export function openExternalIfSafe(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'https:') return false;
  void shell.openExternal(parsed.href);
  return true;
}

/** Electron passes the target URL on the event (details.url) and, deprecated, as the second argument. */
const targetOf = (event: { url?: unknown }, legacyUrl: unknown): string =>
  typeof event.url === 'string' ? event.url : typeof legacyUrl === 'string' ? legacyUrl : '';

const hardened = new WeakSet<WebContents>();

/**
 * Guards one webContents (once, however often it is called): navigations and redirects away from the app's origin are prevented (an https target
 * opens in the system browser instead), `window.open` is always denied, and <webview> tags are refused.
 */
export function hardenWebContents(contents: WebContents, isAppUrl: AppUrlCheck): void {
  if (hardened.has(contents)) return;
  hardened.add(contents);
  contents.setWindowOpenHandler(({ url }) => {
    openExternalIfSafe(url);
    return { action: 'deny' };
  });
  const guard = (event: { url?: unknown; preventDefault(): void }, legacyUrl?: unknown) => {
    const target = targetOf(event, legacyUrl);
    if (isAppUrl(target)) return;
    event.preventDefault();
    openExternalIfSafe(target);
  };
  contents.on('will-navigate', guard);
  contents.on('will-frame-navigate', guard); // frames too (will-navigate is the main frame's only)
  contents.on('will-redirect', guard);
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/**
 * Guards a session: permission requests and checks are granted only for notifications from the app's origin,
 * and every response from the app's origin carries the Content-Security-Policy header.
 */
export function hardenSession(session: Session, isAppUrl: AppUrlCheck): void {
  session.setPermissionRequestHandler((contents, permission, callback, details) => {
    const from = details?.requestingUrl || contents.getURL();
    callback(ALLOWED_PERMISSIONS.has(permission) && isAppUrl(from));
  });
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) => ALLOWED_PERMISSIONS.has(permission) && isAppUrl(requestingOrigin));
  session.webRequest.onHeadersReceived((details, callback) => {
    if (!isAppUrl(details.url)) return callback({});
    const headers = { ...details.responseHeaders };
    for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-security-policy') delete headers[name];
    callback({ responseHeaders: { ...headers, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });
}

/** SHA-256 fingerprint (`AB:CD:…`) of a PEM certificate, or null when it does not parse. */
export function pemFingerprint(pem: string): string | null {
  try {
    return new X509Certificate(pem).fingerprint256;
  } catch {
    return null;
  }
}

/**
 * App-wide guards: every webContents created later (any window, any frame host) gets the same navigation and
 * webview guards; a certificate error is overridden only for the app's own origin presenting the certificate
 * whose fingerprint `trustedFingerprint()` answers (our self-signed one), never for anything else.
 */
export function hardenApp(app: App, isAppUrl: AppUrlCheck, trustedFingerprint: () => string | null): void {
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, isAppUrl));
  app.on('certificate-error', (event, _contents, url, _error, certificate, callback) => {
    const pinned = trustedFingerprint();
    const trusted = pinned !== null && isAppUrl(url) && pemFingerprint(certificate.data) === pinned;
    if (trusted) event.preventDefault();
    callback(trusted);
  });
}
