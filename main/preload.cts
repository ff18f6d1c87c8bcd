/**
 * Preload script (compiled to dist/main/preload.cjs; sandboxed preloads must be CommonJS).
 * Exposes the narrow `window.cati` bridge; channel names mirror CHANNELS in bridge-api.ts.
 */
import electron = require('electron');
import type { CatiBridge, DesktopSettings } from './bridge-api.ts';

const { contextBridge, ipcRenderer } = electron;

const bridge: CatiBridge = {
  getSession: () => ipcRenderer.invoke('cati:get-session'),
  getSettings: () => ipcRenderer.invoke('cati:get-settings'),
  setSettings: (settings: DesktopSettings) => ipcRenderer.invoke('cati:set-settings', settings),
};

contextBridge.exposeInMainWorld('cati', bridge);
