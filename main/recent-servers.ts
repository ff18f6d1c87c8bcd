/**
 * Servers connected to in client mode, remembered in settings.json: URL, pinned fingerprint, last use, and the
 * API key only when the OS can encrypt it (Electron safeStorage: Keychain, DPAPI, libsecret) — never in clear.
 */
import { safeStorage } from 'electron';
import type { RecentServer } from './bridge-api.ts';
import { RECENT_SERVERS_MAX, type StoredServer } from './settings-store.ts';

/** The key encrypted for settings.json, or null when the OS offers no encryption (then it is not remembered). */
export function sealKey(key: string): string | null {
  return safeStorage.isEncryptionAvailable() ? safeStorage.encryptString(key).toString('base64') : null;
}

/** The remembered key of a server, or null (none kept, or it cannot be decrypted any more). */
export function unsealKey(server: StoredServer | undefined): string | null {
  if (!server?.encryptedKey || !safeStorage.isEncryptionAvailable()) return null;
  try {
    return safeStorage.decryptString(Buffer.from(server.encryptedKey, 'base64'));
  } catch {
    return null;
  }
}

/** The list with `server` first (replacing an older entry for its URL), at most RECENT_SERVERS_MAX long. */
export function remember(list: StoredServer[], server: StoredServer): StoredServer[] {
  return [server, ...list.filter((s) => s.url !== server.url)].slice(0, RECENT_SERVERS_MAX);
}

/** What the renderer sees of the remembered servers (never a key). */
export function recentView(list: StoredServer[]): RecentServer[] {
  return list.map((s) => ({ url: s.url, fingerprint: s.fingerprint, lastUsedAt: s.lastUsedAt, hasKey: s.encryptedKey !== null }));
}
