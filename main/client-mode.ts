/**
 * Client mode (docs/desktop.md#desktop): the window works on another CATI Supervisor through the local proxy instead of this
 * computer's embedded server. Switching happens only after the remote server passed every check; a failure leaves
 * everything as it was and says why. Never a silent switch, in either direction.
 */
import { dialog } from 'electron';
import type { ConnectionView, ConnectRequest, ConnectResult } from './bridge-api.ts';
import { startClientProxy } from './client-proxy.ts';
import type { DesktopApp } from './desktop-app.ts';
import { startEmbeddedServer } from './embedded-server.ts';
import { recentView, remember, sealKey, unsealKey } from './recent-servers.ts';
import { checkRemoteServer, normaliseServerUrl } from './remote-server.ts';

/** The connection section's state. */
export function connectionView(desktop: DesktopApp): ConnectionView {
  return { current: desktop.identity(), recent: recentView(desktop.settings.recentServers), problem: desktop.remoteProblem };
}

/** Checks the server, then switches the window to it and remembers it; otherwise answers why and changes nothing. */
export async function connect(desktop: DesktopApp, request: ConnectRequest): Promise<ConnectResult> {
  const url = normaliseServerUrl(String(request?.url ?? ''));
  const stored = desktop.settings.recentServers.find((s) => s.url === url);
  const signIn = typeof request?.name === 'string' && typeof request?.password === 'string' && request.name.trim() !== '' && request.password !== '';
  const key = signIn ? '' : (typeof request?.key === 'string' && request.key.trim()) || unsealKey(stored) || '';
  const check = await checkRemoteServer({ ...request, url: String(request?.url ?? '') }, stored?.fingerprint ?? null, key);
  if (!check.ok) return check.result;
  const proxy = await startClientProxy({
    remoteUrl: check.url,
    remoteKey: check.key,
    fingerprint: check.fingerprint,
    staticDir: desktop.staticDir,
    onRemoteError: (message) => (desktop.remoteProblem = message),
  });
  await desktop.closeBackend();
  desktop.remoteProblem = null;
  desktop.useBackend({ kind: 'remote', proxy });
  desktop.saveSettings({
    connectTo: check.url,
    recentServers: remember(desktop.settings.recentServers, { url: check.url, fingerprint: check.fingerprint, lastUsedAt: new Date().toISOString(), encryptedKey: sealKey(check.key) }),
  });
  return { status: 'connected', view: connectionView(desktop) };
}

/** Back to this computer's embedded server; if it cannot start, the window stays where it is and the error is thrown. */
export async function useLocalServer(desktop: DesktopApp): Promise<ConnectionView> {
  if (desktop.backend?.kind === 'remote') {
    const server = await startEmbeddedServer(desktop.settings, desktop.serverOptions());
    await desktop.closeBackend();
    desktop.remoteProblem = null;
    desktop.useBackend({ kind: 'local', server });
  }
  desktop.saveSettings({ connectTo: null });
  return connectionView(desktop);
}

/** Forgets a remembered server (its pinned certificate and key); not the one the window is on. */
export function forgetServer(desktop: DesktopApp, url: string): ConnectionView {
  if (desktop.backend?.kind === 'remote' && desktop.backend.proxy.remoteUrl === url) {
    throw new Error(`The window is connected to ${url}: switch to another server first.`);
  }
  desktop.saveSettings({ recentServers: desktop.settings.recentServers.filter((s) => s.url !== url) });
  return connectionView(desktop);
}

/**
 * At start, when the app was left connected to another server: connects again with the remembered pin and key.
 * On failure the user chooses between this computer's server and quitting. Answers whether a backend runs.
 */
export async function startRemembered(desktop: DesktopApp): Promise<boolean> {
  const url = desktop.settings.connectTo;
  const stored = desktop.settings.recentServers.find((s) => s.url === url);
  if (!url || !stored) return desktop.startServerOrAsk();
  const result = await connect(desktop, { url, acceptPlainHttp: url.startsWith('http:') });
  if (result.status === 'connected') return true;
  const why = result.status === 'refused' ? result.message : `${url} asks for a new confirmation of its certificate.`;
  const { response } = await dialog.showMessageBox({
    type: 'warning',
    title: 'CATI Supervisor',
    message: `Cannot connect to ${url}`,
    detail: `${why}\n\nYou can work on this computer's own server instead (its own data), or quit.`,
    buttons: ["Use this computer's server", 'Quit'],
    defaultId: 0,
    cancelId: 1,
  });
  if (response !== 0) return false;
  if (!(await desktop.startServerOrAsk())) return false;
  desktop.saveSettings({ connectTo: null });
  return true;
}
