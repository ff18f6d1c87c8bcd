import { BrowserWindow } from 'electron';
import { hardenWebContents, secureWebPreferences, type AppUrlCheck } from './security.ts';

/**
 * Creates the main window on the app's URL with the hardened webPreferences; navigation away from the app's
 * origin (`isAppUrl`, which follows the server when it restarts on another port) is refused (security.ts).
 */
export function createMainWindow(url: string, preload: string, isAppUrl: AppUrlCheck): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 800,
    minHeight: 500,
    title: 'CATI Supervisor',
    show: false,
    webPreferences: secureWebPreferences(preload),
  });
  hardenWebContents(win.webContents, isAppUrl);
  win.once('ready-to-show', () => win.show());
  void win.loadURL(url);
  return win;
}
