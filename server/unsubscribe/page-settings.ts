import { diffChanges, recordAudit } from '../audit/audit-log.ts';
import type { Queryable, Store } from '../db/store.ts';
import { badRequest } from '../errors.ts';

/** Company name and page texts shown on the unsubscribe pages (`GET`/`PUT /optout/settings`). */
export interface PageSettings {
  companyName: string;
  defaultPageText: string;
  confirmPageText: string;
  resultPageText: string;
}

/** A PUT body: present fields change, `null` restores the default, absent fields keep their value. */
export type PageSettingsPatch = { [K in keyof PageSettings]?: string | null };

export const DEFAULT_PAGE_SETTINGS: Readonly<PageSettings> = {
  companyName: '',
  defaultPageText:
    'To stop receiving our e-mails, use the unsubscribe link at the bottom of the e-mail you received. ' +
    'Each link is personal, so we know which address to remove.',
  confirmPageText: 'Press the button below and this address will get no more e-mails from us.',
  resultPageText: 'You have been unsubscribed. We will not send further e-mails to this address.',
};

/** Each field: its row in the `settings` table and its longest accepted length. */
const FIELDS: Record<keyof PageSettings, { key: string; maxLength: number; required: boolean }> = {
  companyName: { key: 'companyName', maxLength: 200, required: false },
  defaultPageText: { key: 'unsubscribe.defaultPageText', maxLength: 4000, required: true },
  confirmPageText: { key: 'unsubscribe.confirmPageText', maxLength: 4000, required: true },
  resultPageText: { key: 'unsubscribe.resultPageText', maxLength: 4000, required: true },
};
const NAMES = Object.keys(FIELDS) as (keyof PageSettings)[];
// Control characters other than tab, line feed and carriage return.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Bumped by every `updatePageSettings` of this process (other processes are seen through `otherWrites`). */
let localWrites = 0;

/** Without the store's change version (PostgreSQL) the settings are read again at most once per this many ms. */
export const SETTINGS_RECHECK_MS = 1000;

/**
 * A value that changes when another connection may have changed the settings: the store's change version
 * (moves when another connection commits); where the store has none, the current SETTINGS_RECHECK_MS bucket,
 * so changes made through another server process are seen within SETTINGS_RECHECK_MS.
 */
function otherWrites(db: Queryable, now: () => number): () => Promise<unknown> {
  return async () => (await db.changeVersion()) ?? `t${Math.floor(now() / SETTINGS_RECHECK_MS)}`;
}

/**
 * The effective settings, read once per change: a reader that answers the same object until this process
 * updates them or another connection may have (`otherWrites`, checked on each call), so callers can cache
 * what they render from it by object identity.
 */
export function cachedPageSettings(db: Queryable, now: () => number = Date.now): () => Promise<Readonly<PageSettings>> {
  const version = otherWrites(db, now);
  let settings: Readonly<PageSettings> | undefined;
  let readAt: { local: number; other: unknown } = { local: -1, other: undefined };
  return async () => {
    const other = await version();
    if (settings === undefined || other !== readAt.other || localWrites !== readAt.local) {
      readAt = { local: localWrites, other };
      settings = await readPageSettings(db);
    }
    return settings;
  };
}

const READ_SETTINGS = `SELECT key, value FROM settings WHERE key IN (${NAMES.map(() => '?').join(', ')})`;
const SETTING_KEYS = NAMES.map((n) => FIELDS[n].key);

/** The effective settings: stored values over the defaults. */
export async function readPageSettings(db: Queryable): Promise<PageSettings> {
  const rows = await db.all<{ key: string; value: string }>(READ_SETTINGS, SETTING_KEYS);
  const stored = new Map(rows.map((r) => [r.key, r.value]));
  const settings = { ...DEFAULT_PAGE_SETTINGS };
  for (const name of NAMES) {
    const raw = stored.get(FIELDS[name].key);
    if (raw === undefined) continue;
    try {
      const value: unknown = JSON.parse(raw);
      if (typeof value === 'string') settings[name] = value;
    } catch {
      // A row not written by us: the default stands.
    }
  }
  return settings;
}

/** Checks a PUT body; throws a 400 naming the first problem. */
export function parsePageSettingsPatch(body: unknown): PageSettingsPatch {
  if (body === undefined) throw badRequest('Send a JSON object with any of: ' + NAMES.join(', '));
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('The body must be a JSON object');
  const patch: PageSettingsPatch = {};
  for (const [name, value] of Object.entries(body)) {
    const field = FIELDS[name as keyof PageSettings];
    if (!Object.hasOwn(FIELDS, name) || !field) throw badRequest(`Unknown field '${name}'; the fields are ${NAMES.join(', ')}`);
    if (value === null) {
      patch[name as keyof PageSettings] = null;
      continue;
    }
    if (typeof value !== 'string') throw badRequest(`'${name}' must be a string (or null for the default)`);
    if (value.length > field.maxLength) throw badRequest(`'${name}' is ${value.length} characters long; at most ${field.maxLength} are allowed`);
    if (CONTROL.test(value)) throw badRequest(`'${name}' contains a control character`);
    if (field.required && value.trim() === '') throw badRequest(`'${name}' must not be empty (send null for the default text)`);
    patch[name as keyof PageSettings] = value;
  }
  return patch;
}

/** Applies a checked patch in one transaction, audited with the effective values before → after; answers the settings. */
export async function updatePageSettings(store: Store, patch: PageSettingsPatch): Promise<PageSettings> {
  const upsert = 'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value';
  const after = await store.transaction(async (tx) => {
    const before = await readPageSettings(tx);
    for (const name of NAMES) {
      const value = patch[name];
      if (value === undefined) continue;
      if (value === null) await tx.run('DELETE FROM settings WHERE key = ?', [FIELDS[name].key]);
      else await tx.run(upsert, [FIELDS[name].key, JSON.stringify(value)]);
    }
    const after = await readPageSettings(tx);
    const changes = diffChanges({ ...before }, { ...after });
    if (Object.keys(changes).length > 0) await recordAudit(tx, { action: 'updated', entity: 'optout-settings', entityId: null, changes });
    return after;
  });
  localWrites++; // after the commit: a reader on another connection cannot cache the old values under the new count
  return after;
}
