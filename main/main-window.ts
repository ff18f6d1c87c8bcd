import { BrowserWindow, shell } from 'electron';

/** webPreferences of every window: no Node in the page, isolated preload, OS sandbox. */
export function secureWebPreferences(preload: string) {
  return { preload, contextIsolation: true, nodeIntegration: false, sandbox: true, webSecurity: true, spellcheck: false };
}

/**
 * Creates the main window on the server's URL; navigation to any other origin than `currentUrl()`
 * (which changes when the server restarts on another port) opens in the system browser instead.
 */
export function createMainWindow(currentUrl: () => string, preload: string): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 800,
    minHeight: 500,
    title: 'CATI Supervisor',
    show: false,
    webPreferences: secureWebPreferences(preload),
  });
  win.webContents.setWindowOpenHandler(({ url: target }) => {
    if (/^https?:/.test(target)) void shell.openExternal(target);
    return { action: 'deny' };
  });
  win.webContents.on('will-navigate', (event, target) => {
    if (new URL(target).origin !== new URL(currentUrl()).origin) {
      event.preventDefault();
      if (/^https?:/.test(target)) void shell.openExternal(target);
    }
  });
  win.once('ready-to-show', () => win.show());
  void win.loadURL(currentUrl());
  return win;
}
