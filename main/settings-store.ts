import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DesktopSettings, TlsMode } from './bridge-api.ts';

/** A server connected to in client mode, as kept in settings.json (its key encrypted by the OS, base64). */
export interface StoredServer {
  url: string;
  fingerprint: string | null;
  lastUsedAt: string;
  encryptedKey: string | null;
}

/** Everything settings.json holds: the embedded server's settings, backups, and client mode. */
export interface AppSettings extends DesktopSettings {
  /** Automatic daily backup into `<data-dir>/backups/` (the last 14 kept). */
  autoBackup: boolean;
  /** The server to connect to at start instead of starting our own (client mode), or null. */
  connectTo: string | null;
  recentServers: StoredServer[];
  /** The phone region was proposed from the OS locale (first start, docs/cati-api.md#phone-region): not again. */
  phoneRegionProposed: boolean;
}

export const DEFAULT_SETTINGS: AppSettings = {
  port: 4100,
  exposeOnLan: false,
  tls: 'self-signed',
  tlsCertFile: null,
  tlsKeyFile: null,
  autoBackup: true,
  connectTo: null,
  recentServers: [],
  phoneRegionProposed: false,
};

/** At most this many servers are remembered. */
export const RECENT_SERVERS_MAX = 8;

/** Path of the settings file inside the userData directory. */
export const settingsFile = (userDataDir: string) => join(userDataDir, 'settings.json');

const TLS_MODES: readonly TlsMode[] = ['self-signed', 'own', 'off'];

const optionalPath = (value: unknown, name: string): string | null => {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value !== 'string' || value.length > 4096) throw new Error(`${name} must be a file path`);
  return value;
};

/** Checks the embedded server's settings coming from the renderer or the file; throws an Error naming the bad field. */
export function validateSettings(input: unknown): DesktopSettings {
  if (typeof input !== 'object' || input === null) throw new Error('Settings must be an object');
  const { port, exposeOnLan, tls = 'self-signed', tlsCertFile, tlsKeyFile } = input as Record<string, unknown>;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error('port must be a whole number from 0 to 65535');
  }
  if (typeof exposeOnLan !== 'boolean') throw new Error('exposeOnLan must be true or false');
  if (!TLS_MODES.includes(tls as TlsMode)) throw new Error(`tls must be one of ${TLS_MODES.join(', ')}`);
  const settings = { port, exposeOnLan, tls: tls as TlsMode, tlsCertFile: optionalPath(tlsCertFile, 'tlsCertFile'), tlsKeyFile: optionalPath(tlsKeyFile, 'tlsKeyFile') };
  if (settings.tls === 'own' && (!settings.tlsCertFile || !settings.tlsKeyFile)) {
    throw new Error('Choose both a certificate file and its private key file for your own certificate');
  }
  return settings;
}

function storedServer(value: unknown): StoredServer | null {
  const v = value as Partial<StoredServer> | null;
  if (!v || typeof v.url !== 'string' || !/^https?:\/\//.test(v.url)) return null;
  return {
    url: v.url,
    fingerprint: typeof v.fingerprint === 'string' ? v.fingerprint : null,
    lastUsedAt: typeof v.lastUsedAt === 'string' ? v.lastUsedAt : new Date(0).toISOString(),
    encryptedKey: typeof v.encryptedKey === 'string' ? v.encryptedKey : null,
  };
}

/** Reads the settings; a missing or unreadable file gives the defaults (a bad file is reported, not fatal). */
export function readSettings(file: string, warn: (message: string) => void = () => {}): AppSettings {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    if ((err as { code?: string }).code !== 'ENOENT') warn(`Ignoring ${file}: ${(err as Error).message}`);
    return { ...DEFAULT_SETTINGS };
  }
  let server: DesktopSettings;
  try {
    server = validateSettings({ ...DEFAULT_SETTINGS, ...raw });
  } catch (err) {
    warn(`Ignoring the server settings in ${file}: ${(err as Error).message}`);
    server = { ...DEFAULT_SETTINGS };
  }
  const recent = Array.isArray(raw.recentServers) ? raw.recentServers.map(storedServer).filter((s) => s !== null) : [];
  return {
    ...server,
    autoBackup: typeof raw.autoBackup === 'boolean' ? raw.autoBackup : DEFAULT_SETTINGS.autoBackup,
    connectTo: typeof raw.connectTo === 'string' && recent.some((s) => s.url === raw.connectTo) ? raw.connectTo : null,
    recentServers: recent.slice(0, RECENT_SERVERS_MAX),
    phoneRegionProposed: raw.phoneRegionProposed === true,
  };
}

/** Writes the settings atomically (temp file + rename, mode 0600), so a crash never leaves half a file. */
export function writeSettings(file: string, settings: AppSettings): void {
  const checked: AppSettings = {
    ...validateSettings(settings),
    autoBackup: settings.autoBackup,
    connectTo: settings.connectTo,
    recentServers: settings.recentServers.slice(0, RECENT_SERVERS_MAX),
    phoneRegionProposed: settings.phoneRegionProposed === true,
  };
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(checked, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}
