import { app, dialog, ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHANNELS, type DesktopSettings, type DesktopSettingsView, type Session } from './bridge-api.ts';
import { lanWarning, ServerStartError, startEmbeddedServer, type EmbeddedServer } from './embedded-server.ts';
import { createMainWindow } from './main-window.ts';
import { readSettings, settingsFile, validateSettings, writeSettings } from './settings-store.ts';

const HERE = dirname(fileURLToPath(import.meta.url));

export interface DesktopOptions {
  /** Defaults to app.getPath('userData'). */
  userDataDir?: string;
  /** Directory holding the built renderer; defaults to dist/renderer next to dist/main. */
  staticDir?: string;
  /** Compiled preload script; defaults to preload.cjs next to this file. */
  preload?: string;
  startTimeoutMs?: number;
}

/** The desktop app: one embedded server, one window, the settings file, the IPC bridge. */
export class DesktopApp {
  server: EmbeddedServer | null = null;
  window: BrowserWindow | null = null;
  settings: DesktopSettings;
  readonly userDataDir: string;
  private readonly staticDir: string;
  private readonly preload: string;

  constructor(private readonly options: DesktopOptions = {}) {
    this.userDataDir = options.userDataDir ?? app.getPath('userData');
    this.staticDir = options.staticDir ?? join(HERE, '..', 'renderer');
    this.preload = options.preload ?? join(HERE, 'preload.cjs');
    this.settings = readSettings(settingsFile(this.userDataDir), (m) => console.warn(m));
  }

  /** Starts the server (asking what to do when the port is taken) and opens the window; false = gave up. */
  async start(): Promise<boolean> {
    if (!(await this.startServerOrAsk(this.settings))) return false;
    this.window = createMainWindow(() => this.server?.localUrl ?? 'about:blank', this.preload);
    this.window.on('closed', () => (this.window = null));
    return true;
  }

  private async startServerOrAsk(settings: DesktopSettings): Promise<boolean> {
    try {
      this.server = await startEmbeddedServer(settings, this.serverOptions());
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

  private serverOptions() {
    const argv = process.argv;
    return { dataDir: this.userDataDir, staticDir: this.staticDir, timeoutMs: this.options.startTimeoutMs, demo: argv.includes('--demo'), demoLive: argv.includes('--demo-live') };
  }

  /** The renderer's session: server URL and the in-memory session key. */
  session(): Session {
    if (!this.server) throw new Error('The embedded server is not running');
    return { baseUrl: this.server.localUrl, apiKey: this.server.sessionKey };
  }

  settingsView(): DesktopSettingsView {
    return {
      ...this.settings,
      serverUrl: this.server?.running.url ?? '',
      dataDir: this.userDataDir,
      warning: this.server ? lanWarning(this.server) : null,
    };
  }

  /** Saves new settings and restarts the server on them; on failure the previous server keeps running. */
  async applySettings(input: unknown): Promise<DesktopSettingsView> {
    const next = validateSettings(input);
    const previous = this.server;
    const samePort = previous && (next.port === previous.running.port || next.port === this.settings.port);
    const sameBinding = samePort && next.exposeOnLan === this.settings.exposeOnLan;
    if (!sameBinding) {
      // The new port may equal the old one (e.g. only LAN exposure changed): free it first, restore on failure.
      await previous?.running.close();
      this.server = null;
      try {
        this.server = await startEmbeddedServer(next, this.serverOptions());
      } catch (err) {
        if (previous) this.server = await startEmbeddedServer(this.settings, this.serverOptions()).catch(() => null);
        if (this.server) void this.window?.loadURL(this.server.localUrl);
        throw err;
      }
      void this.window?.loadURL(this.server.localUrl);
    }
    writeSettings(settingsFile(this.userDataDir), next);
    this.settings = next;
    return this.settingsView();
  }

  /** Whether an IPC call comes from our own page (not from some other origin loaded by accident). */
  isTrustedSender(event: IpcMainInvokeEvent): boolean {
    const url = event.senderFrame?.url;
    return Boolean(this.server && url && new URL(url).origin === new URL(this.server.localUrl).origin);
  }

  /** Closes the server and the database. */
  async shutdown(): Promise<void> {
    const server = this.server;
    this.server = null;
    await server?.running.close();
  }
}

/** Registers the preload bridge's handlers; every call is refused unless it comes from our page. */
export function registerBridge(desktop: DesktopApp): void {
  const guard =
    <A extends unknown[], R>(fn: (...args: A) => R) =>
    (event: IpcMainInvokeEvent, ...args: A): R => {
      if (!desktop.isTrustedSender(event)) throw new Error('Refused: the request does not come from the CATI Supervisor page');
      return fn(...args);
    };
  ipcMain.handle(CHANNELS.getSession, guard(() => desktop.session()));
  ipcMain.handle(CHANNELS.getSettings, guard(() => desktop.settingsView()));
  ipcMain.handle(CHANNELS.setSettings, guard((input: unknown) => desktop.applySettings(input)));
}

/** The app's lifecycle: single instance, start on ready, clean shutdown on quit. */
export async function runDesktop(options: DesktopOptions = {}): Promise<DesktopApp | null> {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return null;
  }
  await app.whenReady();
  const desktop = new DesktopApp(options);
  registerBridge(desktop);
  app.on('second-instance', () => {
    if (desktop.window?.isMinimized()) desktop.window.restore();
    desktop.window?.focus();
  });
  app.on('window-all-closed', () => app.quit());
  let closed = false;
  app.on('before-quit', (event) => {
    if (closed) return;
    event.preventDefault();
    void desktop.shutdown().finally(() => {
      closed = true;
      app.quit();
    });
  });
  if (!(await desktop.start())) app.quit();
  return desktop;
}
