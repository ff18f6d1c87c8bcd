import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DesktopSettings } from './bridge-api.ts';

export const DEFAULT_SETTINGS: DesktopSettings = { port: 4100, exposeOnLan: false };

/** Path of the settings file inside the userData directory. */
export const settingsFile = (userDataDir: string) => join(userDataDir, 'settings.json');

/** Checks settings coming from the renderer or the file; throws an Error naming the bad field. */
export function validateSettings(input: unknown): DesktopSettings {
  if (typeof input !== 'object' || input === null) throw new Error('Settings must be an object');
  const { port, exposeOnLan } = input as Record<string, unknown>;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error('port must be a whole number from 0 to 65535');
  }
  if (typeof exposeOnLan !== 'boolean') throw new Error('exposeOnLan must be true or false');
  return { port, exposeOnLan };
}

/** Reads the settings; a missing or unreadable file gives the defaults (a bad file is reported, not fatal). */
export function readSettings(file: string, warn: (message: string) => void = () => {}): DesktopSettings {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
  try {
    return validateSettings({ ...DEFAULT_SETTINGS, ...(JSON.parse(text) as object) });
  } catch (err) {
    warn(`Ignoring ${file}: ${(err as Error).message}`);
    return { ...DEFAULT_SETTINGS };
  }
}

/** Writes the settings atomically (temp file + rename), so a crash never leaves half a file. */
export function writeSettings(file: string, settings: DesktopSettings): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(validateSettings(settings), null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}
