import { app } from 'electron';
import { resolve } from 'node:path';
import { autoBackupTick } from './backup-actions.ts';
import { registerBridge } from './bridge.ts';
import { startRemembered } from './client-mode.ts';
import { DesktopApp, hardenDesktop, type DesktopOptions } from './desktop-app.ts';

/** `--data-dir D` on the command line (npm start -- --data-dir D): another data dir than userData. */
export function dataDirArgument(argv: readonly string[]): string | undefined {
  const i = argv.indexOf('--data-dir');
  const value = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--data-dir='))?.slice('--data-dir='.length);
  return value ? resolve(value) : undefined;
}

/** The app's lifecycle: single instance (per data dir), hardening, start on ready, clean shutdown on quit. */
export async function runDesktop(options: DesktopOptions = {}): Promise<DesktopApp | null> {
  const dataDir = options.userDataDir ?? dataDirArgument(process.argv);
  if (dataDir) app.setPath('userData', dataDir); // before the single-instance lock, which lives there
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return null;
  }
  await app.whenReady();
  const desktop = new DesktopApp({ ...options, userDataDir: dataDir });
  hardenDesktop(desktop);
  registerBridge(desktop);
  desktop.onTick = () => autoBackupTick(desktop);
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
  if (!(await desktop.start(() => startRemembered(desktop)))) {
    closed = true;
    await desktop.shutdown();
    app.quit();
    return desktop;
  }
  // The first automatic backup check soon after start, then hourly (DesktopApp's timer); none when checks are off.
  const every = options.autoBackupCheckMs ?? 60 * 60_000;
  if (every > 0) setTimeout(() => void desktop.onTick?.(), Math.min(every, 60_000)).unref();
  return desktop;
}
