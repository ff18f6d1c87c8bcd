/**
 * The narrow API the preload script exposes to the renderer as `window.cati`.
 * Types only: shared by main/ (which implements it) and renderer/ (which calls it).
 */

/** Where the renderer sends API requests, and with which key. */
export interface Session {
  baseUrl: string;
  apiKey: string;
}

/** Settings of the desktop app, kept as JSON in the userData directory. */
export interface DesktopSettings {
  /** Port of the embedded server; 0 = any free port. */
  port: number;
  /** Bind 0.0.0.0 instead of 127.0.0.1 so LAN clients (dialer, mailers) can reach the API. */
  exposeOnLan: boolean;
}

/** What the settings screen shows about the running embedded server. */
export interface DesktopSettingsView extends DesktopSettings {
  /** URL the embedded server listens on. */
  serverUrl: string;
  dataDir: string;
  /** Set when the API is exposed on the LAN without TLS. */
  warning: string | null;
}

/** `window.cati` in the desktop app; absent in a plain browser. */
export interface CatiBridge {
  getSession(): Promise<Session>;
  getSettings(): Promise<DesktopSettingsView>;
  /** Saves the settings and restarts the embedded server (the window reloads on the new URL). */
  setSettings(settings: DesktopSettings): Promise<DesktopSettingsView>;
}

/** IPC channel names, one per bridge function. */
export const CHANNELS = {
  getSession: 'cati:get-session',
  getSettings: 'cati:get-settings',
  setSettings: 'cati:set-settings',
} as const;
