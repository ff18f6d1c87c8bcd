/**
 * The narrow API the preload script exposes to the renderer as `window.cati`.
 * Types only: shared by main/ (which implements it) and renderer/ (which calls it).
 */

/** Which server the window works on: this computer's own, or another CATI Supervisor on the network. */
export interface ServerIdentity {
  mode: 'local' | 'remote';
  /** The server's URL as the user knows it (this computer's: its own listening URL). */
  url: string;
  /** SHA-256 fingerprint of the remote server's certificate as pinned; null for plain HTTP or the local server. */
  fingerprint: string | null;
}

/** Where the renderer sends API requests, and with which key. */
export interface Session {
  baseUrl: string;
  apiKey: string;
  /** Which server this is (desktop app only), for the banner. */
  server?: ServerIdentity;
}

/** How the API is served when it is exposed on the LAN: a self-signed certificate, the user's files, or plain HTTP. */
export type TlsMode = 'self-signed' | 'own' | 'off';

/** Settings of this computer's embedded server, kept as JSON in the userData directory. */
export interface DesktopSettings {
  /** Port of the embedded server; 0 = any free port. */
  port: number;
  /** Bind 0.0.0.0 instead of 127.0.0.1 so LAN clients (dialer, mailers) can reach the API. */
  exposeOnLan: boolean;
  /** TLS when exposed on the LAN (loopback-only is always plain HTTP). */
  tls: TlsMode;
  /** The user's certificate and key files (tls 'own'). */
  tlsCertFile: string | null;
  tlsKeyFile: string | null;
}

/** One address LAN clients can use. */
export interface LanUrl {
  /** Network interface name (eth0, Wi-Fi, …). */
  interfaceName: string;
  address: string;
  family: 'IPv4' | 'IPv6';
  /** Base URL of the server at that address. */
  url: string;
}

/** What LAN clients need: the URLs per interface address, the certificate to pin, and what to paste where. */
export interface LanAccess {
  urls: LanUrl[];
  https: boolean;
  /** SHA-256 fingerprint of the served certificate (`AB:CD:…`), null without TLS. */
  fingerprint: string | null;
  /** The certificate file (to install on clients or pass to curl --cacert). */
  certFile: string | null;
}

/** What the settings screen shows about the running embedded server. */
export interface DesktopSettingsView extends DesktopSettings {
  /** URL the embedded server listens on. */
  serverUrl: string;
  dataDir: string;
  /** Set when the API is exposed on the LAN without TLS. */
  warning: string | null;
  /** Set while the API is exposed on the LAN. */
  lan: LanAccess | null;
}

/** A server connected to before (client mode); its key is kept only encrypted by the OS (safeStorage). */
export interface RecentServer {
  url: string;
  fingerprint: string | null;
  lastUsedAt: string;
  hasKey: boolean;
}

/** The connection screen's state. */
export interface ConnectionView {
  current: ServerIdentity;
  recent: RecentServer[];
  /** In client mode: the last failure to reach the server since connecting (unreachable, certificate changed), else null. */
  problem: string | null;
}

/** What the user asks for to connect to another server. */
export interface ConnectRequest {
  url: string;
  /** The API key; omitted = the one remembered for this URL. */
  key?: string;
  /** Sign in as a person instead (CONTRACT §15): the session key it gets is used as the key. */
  name?: string;
  password?: string;
  /** The fingerprint the user has compared and accepts (first connection to an https server). */
  acceptFingerprint?: string;
  /** The user accepts that a plain-HTTP server gets the key in clear text. */
  acceptPlainHttp?: boolean;
}

/** The answer to a connect request: connected, a certificate to confirm first, or why not (nothing changed). */
export type ConnectResult =
  | { status: 'connected'; view: ConnectionView }
  | { status: 'confirm-certificate'; fingerprint: string; message: string }
  | { status: 'confirm-plain-http'; message: string }
  | { status: 'refused'; message: string };

/** One backup file in `<data-dir>/backups/`. */
export interface BackupInfo {
  name: string;
  file: string;
  size: number;
  createdAt: string;
  /** Made by the automatic daily backup (the last 14 are kept). */
  auto: boolean;
}

/** The backups section's state. */
export interface BackupsView {
  dir: string;
  autoDaily: boolean;
  keep: number;
  backups: BackupInfo[];
}

/** A file chosen for a restore, checked before the user confirms. */
export interface RestoreCandidate {
  file: string;
  size: number;
  /** Migrations applied in that database (a CATI Supervisor database has them). */
  migrations: number;
  /** Newest applied migration's time, as a hint of the file's age. */
  lastMigratedAt: string | null;
}

/** `window.cati` in the desktop app; absent in a plain browser. */
export interface CatiBridge {
  getSession(): Promise<Session>;
  getSettings(): Promise<DesktopSettingsView>;
  /** Saves the settings and restarts the embedded server (the window reloads on the new URL). */
  setSettings(settings: DesktopSettings): Promise<DesktopSettingsView>;
  /** Native open dialog for a certificate or key file; null when cancelled. */
  chooseTlsFile(kind: 'cert' | 'key'): Promise<string | null>;
  getConnection(): Promise<ConnectionView>;
  /** Connects to another server (the window reloads on it); on any problem nothing changes. */
  connect(request: ConnectRequest): Promise<ConnectResult>;
  /** Back to this computer's own server. */
  useLocalServer(): Promise<ConnectionView>;
  forgetServer(url: string): Promise<ConnectionView>;
  getBackups(): Promise<BackupsView>;
  backupNow(): Promise<BackupInfo>;
  setAutoBackup(on: boolean): Promise<BackupsView>;
  /** Native open dialog for a backup to restore, checked; null when cancelled. Throws when it is not our database. */
  chooseRestoreFile(): Promise<RestoreCandidate | null>;
  /** Restores the file chosen last (after the user confirmed), keeping the replaced database, and restarts the app. */
  restoreChosenFile(): Promise<void>;
  /** Native save dialog, then the main process streams `GET path` (an export) into the chosen file; null when cancelled. */
  saveDownload(path: string, suggestedName: string): Promise<string | null>;
  /** Native save dialog for content made in the page (a CSV of a table); null when cancelled. */
  saveFile(suggestedName: string, content: Uint8Array): Promise<string | null>;
  /** The operating system's locale (`nl-NL`), from which the screens' language is proposed (docs/screens.md#language). */
  getSystemLocale(): Promise<string>;
}

/** IPC channel names, one per bridge function. */
export const CHANNELS = {
  getSession: 'cati:get-session',
  getSettings: 'cati:get-settings',
  setSettings: 'cati:set-settings',
  chooseTlsFile: 'cati:choose-tls-file',
  getConnection: 'cati:get-connection',
  connect: 'cati:connect',
  useLocalServer: 'cati:use-local-server',
  forgetServer: 'cati:forget-server',
  getBackups: 'cati:get-backups',
  backupNow: 'cati:backup-now',
  setAutoBackup: 'cati:set-auto-backup',
  chooseRestoreFile: 'cati:choose-restore-file',
  restoreChosenFile: 'cati:restore-chosen-file',
  saveDownload: 'cati:save-download',
  saveFile: 'cati:save-file',
  getSystemLocale: 'cati:get-system-locale',
} as const satisfies Record<keyof CatiBridge, string>;
