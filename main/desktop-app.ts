import { app, dialog, session as electronSession, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DesktopSettingsView, ServerIdentity, Session } from './bridge-api.ts';
import type { ClientProxy } from './client-proxy.ts';
import { lanWarning, ServerStartError, startEmbeddedServer, tlsFilesFor, type EmbeddedServer } from './embedded-server.ts';
import type { ApiAccess } from './file-dialogs.ts';
import { lanAccess } from './lan-access.ts';
import { createMainWindow } from './main-window.ts';
import { PinnedAgent } from './pinned-https.ts';
import { hardenApp, hardenSession, sameOriginAs } from './security.ts';
import { readSettings, settingsFile, validateSettings, writeSettings, type AppSettings } from './settings-store.ts';
import { regionFromLocale } from '../server/cati/phone-region-setting.ts';

const HERE = dirname(fileURLToPath(import.meta.url));

export interface DesktopOptions {
  /** Defaults to app.getPath('userData'). */
  userDataDir?: string;
  /** Directory holding the built renderer; defaults to dist/renderer next to dist/main. */
  staticDir?: string;
  /** Compiled preload script; defaults to preload.cjs next to this file. */
  preload?: string;
  startTimeoutMs?: number;
  /** How often the automatic daily backup checks whether it is due; 0 = never (tests). Default hourly. */
  autoBackupCheckMs?: number;
}

/** What the window works on: this computer's embedded server, or the proxy to another server (client mode). */
export type Backend = { kind: 'local'; server: EmbeddedServer } | { kind: 'remote'; proxy: ClientProxy };

/** The desktop app: one backend (embedded server or client-mode proxy), one window, the settings file. */
export class DesktopApp {
  backend: Backend | null = null;
  window: BrowserWindow | null = null;
  settings: AppSettings;
  /** The last failure to reach the remote server in client mode (for the banner), or null. */
  remoteProblem: string | null = null;
  readonly userDataDir: string;
  readonly staticDir: string;
  private readonly preload: string;
  private localAgent: PinnedAgent | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Whether a URL is on the window's current origin (it follows restarts and switches). */
  readonly isAppUrl = sameOriginAs(() => this.appUrl());

  constructor(readonly options: DesktopOptions = {}) {
    this.userDataDir = options.userDataDir ?? app.getPath('userData');
    this.staticDir = options.staticDir ?? join(HERE, '..', 'renderer');
    this.preload = options.preload ?? join(HERE, 'preload.cjs');
    this.settings = readSettings(settingsFile(this.userDataDir), (m) => console.warn(m));
  }

  /** The embedded server when the window works on this computer's data, else null. */
  get server(): EmbeddedServer | null {
    return this.backend?.kind === 'local' ? this.backend.server : null;
  }

  /** The URL the window loads (embedded server or client-mode proxy), null before start. */
  appUrl(): string | null {
    if (!this.backend) return null;
    return this.backend.kind === 'local' ? this.backend.server.localUrl : this.backend.proxy.localUrl;
  }

  /** Our own certificate's fingerprint while the embedded server serves HTTPS (trusted on loopback only). */
  ownFingerprint(): string | null {
    return this.server?.running.tls?.fingerprint ?? null;
  }

  /** Starts the backend (asking what to do when the port is taken) and opens the window; false = gave up. */
  async start(startBackend: () => Promise<boolean> = () => this.startServerOrAsk(this.settings)): Promise<boolean> {
    if (!(await startBackend())) return false;
    this.window = createMainWindow(this.appUrl()!, this.preload, this.isAppUrl);
    this.window.on('closed', () => (this.window = null));
    const every = this.options.autoBackupCheckMs ?? 60 * 60_000;
    if (every > 0) {
      this.timer = setInterval(() => void this.onTick?.(), every);
      this.timer.unref();
    }
    return true;
  }

  /** Called on every automatic-backup check (set by the backups wiring). */
  onTick: (() => Promise<unknown>) | null = null;

  /** Starts the embedded server; when the port is taken, offers a free port. false = the user gave up. */
  async startServerOrAsk(settings = this.settings): Promise<boolean> {
    try {
      this.useBackend({ kind: 'local', server: await startEmbeddedServer(settings, this.serverOptions()) });
      if (!this.settings.phoneRegionProposed) this.saveSettings({ phoneRegionProposed: true }); // proposed once, at first start
      return true;
    } catch (err) {
      const problem = err instanceof ServerStartError ? err : new ServerStartError(String(err), null);
      if (problem.code !== 'EADDRINUSE' || settings.port === 0) {
        dialog.showErrorBox('CATI Supervisor cannot start', problem.message);
        return false;
      }
      const { response } = await dialog.showMessageBox({
        type: 'error',
        title: 'CATI Supervisor',
        message: 'The port is already in use',
        detail: problem.message,
        buttons: ['Start on a free port', 'Quit'],
        defaultId: 0,
        cancelId: 1,
      });
      return response === 0 && this.startServerOrAsk({ ...settings, port: 0 });
    }
  }

  serverOptions() {
    const argv = process.argv;
    // First start: propose the phone region from the OS locale (docs/cati-api.md#phone-region); the server keeps a stored one.
    const proposedPhoneRegion = this.settings.phoneRegionProposed ? null : regionFromLocale(app.getSystemLocale?.() || app.getLocale());
    return {
      dataDir: this.userDataDir, staticDir: this.staticDir, timeoutMs: this.options.startTimeoutMs, demo: argv.includes('--demo'), demoLive: argv.includes('--demo-live'),
      proposedPhoneRegion,
    };
  }

  /** Makes `next` the window's backend (the previous one must be closed by the caller) and reloads the window on it. */
  useBackend(next: Backend): void {
    this.backend = next;
    this.localAgent?.destroy();
    const fingerprint = next.kind === 'local' ? next.server.running.tls?.fingerprint : null;
    this.localAgent = fingerprint ? new PinnedAgent(fingerprint) : null;
    if (this.window) void this.window.loadURL(this.appUrl()!);
  }

  /** Which server the window works on. */
  identity(): ServerIdentity {
    const b = this.backend;
    if (!b) throw new Error('CATI Supervisor has no server yet');
    return b.kind === 'local'
      ? { mode: 'local', url: b.server.running.url, fingerprint: b.server.running.tls?.fingerprint ?? null }
      : { mode: 'remote', url: b.proxy.remoteUrl, fingerprint: b.proxy.fingerprint };
  }

  /** How the main process reaches the API the window uses (for streamed downloads). */
  apiAccess(): ApiAccess {
    const b = this.backend;
    if (!b) throw new Error('CATI Supervisor has no server yet');
    if (b.kind === 'remote') return { baseUrl: b.proxy.localUrl, apiKey: b.proxy.sessionKey };
    return { baseUrl: b.server.localUrl, apiKey: b.server.sessionKey, agent: this.localAgent ?? undefined };
  }

  /** The renderer's session: the API's URL, its key (never the remote server's key), and which server it is. */
  session(): Session {
    const { baseUrl, apiKey } = this.apiAccess();
    return { baseUrl, apiKey, server: this.identity() };
  }

  settingsView(): DesktopSettingsView {
    const { port, exposeOnLan, tls, tlsCertFile, tlsKeyFile } = this.settings;
    const server = this.server;
    const served = server && { host: server.host, port: server.running.port, tls: server.running.tls && { fingerprint: server.running.tls.fingerprint, certFile: server.running.tls.certFile } };
    return {
      port,
      exposeOnLan,
      tls,
      tlsCertFile,
      tlsKeyFile,
      serverUrl: server?.running.url ?? '',
      dataDir: this.userDataDir,
      warning: server ? lanWarning(server) : null,
      lan: served ? lanAccess(served) : null,
    };
  }

  /** Saves settings.json (merging `change`). */
  saveSettings(change: Partial<AppSettings>): void {
    const next = { ...this.settings, ...change };
    writeSettings(settingsFile(this.userDataDir), next);
    this.settings = next;
  }

  /**
   * Saves new server settings and restarts the embedded server on them. Bad TLS files are refused before the
   * running server is touched; if the new binding fails, the previous server is started again.
   */
  async applySettings(input: unknown): Promise<DesktopSettingsView> {
    const next = validateSettings(input);
    const previous = this.server;
    if (this.backend?.kind === 'remote') throw new Error(`You are connected to ${this.backend.proxy.remoteUrl}: switch back to this computer's server to change its settings.`);
    await tlsFilesFor(next, this.userDataDir);
    const s = this.settings;
    const samePort = previous && (next.port === previous.running.port || next.port === s.port);
    const sameTls = next.tls === s.tls && next.tlsCertFile === s.tlsCertFile && next.tlsKeyFile === s.tlsKeyFile;
    if (!(samePort && next.exposeOnLan === s.exposeOnLan && (sameTls || !next.exposeOnLan))) {
      // The new port may equal the old one (e.g. only LAN exposure changed): free it first, restore on failure.
      await previous?.running.close();
      this.backend = null;
      try {
        this.useBackend({ kind: 'local', server: await startEmbeddedServer(next, this.serverOptions()) });
      } catch (err) {
        const back = previous && (await startEmbeddedServer(this.settings, this.serverOptions()).catch(() => null));
        if (back) this.useBackend({ kind: 'local', server: back });
        throw err;
      }
    }
    this.saveSettings(next);
    return this.settingsView();
  }

  /** Whether an IPC call comes from our own page (not from some other origin loaded by accident). */
  isTrustedSender(event: IpcMainInvokeEvent): boolean {
    const url = event.senderFrame?.url;
    return Boolean(url && this.isAppUrl(url));
  }

  /** Closes the backend (the server and the database, or the proxy). */
  async closeBackend(): Promise<void> {
    const b = this.backend;
    this.backend = null;
    if (b?.kind === 'local') await b.server.running.close();
    if (b?.kind === 'remote') await b.proxy.close();
  }

  /** Stops the timers and closes the backend. */
  async shutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.localAgent?.destroy();
    await this.closeBackend();
  }
}

/** App-wide hardening for a desktop app: every webContents guarded, the default session's permissions and CSP. */
export function hardenDesktop(desktop: DesktopApp): void {
  hardenApp(app, desktop.isAppUrl, () => desktop.ownFingerprint());
  hardenSession(electronSession.defaultSession, desktop.isAppUrl);
}
