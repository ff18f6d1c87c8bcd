import { diffChanges, recordAuditSync } from '../audit/audit-log.ts';
import { prepareCached } from '../odata/collection-query.ts';
import type { Db } from '../db/open.ts';
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

/** Bumped by every `updatePageSettings` of this process (other processes are seen through `data_version`). */
let localWrites = 0;

/**
 * The effective settings, read once per change: a reader that answers the same object until this process
 * updates them or another connection commits (`PRAGMA data_version`, checked on each call), so callers can
 * cache what they render from it by object identity.
 */
export function cachedPageSettings(db: Db): () => Readonly<PageSettings> {
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  let settings: Readonly<PageSettings> | undefined;
  let readAt = { local: -1, other: -1 };
  return () => {
    const other = dataVersion.get()!;
    if (settings === undefined || other !== readAt.other || localWrites !== readAt.local) {
      readAt = { local: localWrites, other };
      settings = readPageSettings(db);
    }
    return settings;
  };
}

/** The effective settings: stored values over the defaults. */
export function readPageSettings(db: Db): PageSettings {
  const rows = prepareCached(db, `SELECT key, value FROM settings WHERE key IN (${NAMES.map(() => '?').join(', ')})`)
    .all(...NAMES.map((n) => FIELDS[n].key)) as { key: string; value: string }[];
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
export function updatePageSettings(db: Db, patch: PageSettingsPatch): PageSettings {
  const upsert = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  const remove = db.prepare('DELETE FROM settings WHERE key = ?');
  return db.transaction(() => {
    const before = readPageSettings(db);
    for (const name of NAMES) {
      const value = patch[name];
      if (value === undefined) continue;
      if (value === null) remove.run(FIELDS[name].key);
      else upsert.run(FIELDS[name].key, JSON.stringify(value));
    }
    const after = readPageSettings(db);
    localWrites++;
    const changes = diffChanges({ ...before }, { ...after });
    if (Object.keys(changes).length > 0) recordAuditSync(db, { action: 'updated', entity: 'optout-settings', entityId: null, changes });
    return after;
  }).immediate();
}
