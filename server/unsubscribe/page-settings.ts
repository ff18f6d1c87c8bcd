import { diffChanges, recordAudit } from '../audit/audit-log.ts';
import type { Queryable, Store } from '../db/store.ts';
import { badRequest } from '../errors.ts';
import { isLanguage, LANGUAGES, parseLanguage, type Language } from '../lib/languages.ts';
import { BUILT_IN_TEXTS, TEXT_NAMES, type PageTexts } from './page-texts.ts';

/**
 * Company name and page texts shown on the unsubscribe pages (`GET`/`PUT /optout/settings`): the top-level texts
 * are the English ones (the same as `texts.en`), `texts` holds every language's effective texts, and
 * `defaultLanguage` is the language of a page whose list has none and whose request names none we speak.
 */
export interface PageSettings extends PageTexts {
  companyName: string;
  defaultLanguage: Language;
  texts: Record<Language, PageTexts>;
}

/** A PUT body: present fields change, `null` restores the default, absent fields keep their value. */
export interface PageSettingsPatch {
  companyName?: string | null;
  defaultLanguage?: Language | null;
  /** Per language (`en` included: the same as the top-level texts), each text or null for the built-in one. */
  texts?: Partial<Record<Language, TextsPatch>>;
  /** The top-level (English) texts as sent; they meet `texts.en` in updatePageSettings. */
  english?: TextsPatch;
}

type TextsPatch = { [K in keyof PageTexts]?: string | null };

export const DEFAULT_PAGE_SETTINGS: Readonly<PageSettings> = {
  companyName: '',
  ...BUILT_IN_TEXTS.en,
  defaultLanguage: 'en',
  texts: { ...BUILT_IN_TEXTS },
};

const COMPANY = { key: 'companyName', maxLength: 200 };
const DEFAULT_LANGUAGE_KEY = 'unsubscribe.defaultLanguage';
const TEXT_MAX = 4000;
/** The `settings` row of a language's text (English keeps the rows it always had). */
const textKey = (language: Language, name: keyof PageTexts) => (language === 'en' ? `unsubscribe.${name}` : `unsubscribe.${language}.${name}`);
const SETTING_KEYS = [COMPANY.key, DEFAULT_LANGUAGE_KEY, ...LANGUAGES.flatMap((l) => TEXT_NAMES.map((n) => textKey(l, n)))];
const TOP_LEVEL = ['companyName', ...TEXT_NAMES, 'defaultLanguage', 'texts'];
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

const READ_SETTINGS = `SELECT key, value FROM settings WHERE key IN (${SETTING_KEYS.map(() => '?').join(', ')})`;

/** The effective settings: stored values over the defaults. */
export async function readPageSettings(db: Queryable): Promise<PageSettings> {
  const rows = await db.all<{ key: string; value: string }>(READ_SETTINGS, SETTING_KEYS);
  const stored = new Map<string, string>();
  for (const r of rows) {
    try {
      const value: unknown = JSON.parse(r.value);
      if (typeof value === 'string') stored.set(r.key, value);
    } catch {
      // A row not written by us: the default stands.
    }
  }
  const texts = Object.fromEntries(
    LANGUAGES.map((l) => [l, Object.fromEntries(TEXT_NAMES.map((n) => [n, stored.get(textKey(l, n)) ?? BUILT_IN_TEXTS[l][n]])) as unknown as PageTexts]),
  ) as Record<Language, PageTexts>;
  const language = stored.get(DEFAULT_LANGUAGE_KEY);
  return {
    companyName: stored.get(COMPANY.key) ?? DEFAULT_PAGE_SETTINGS.companyName,
    ...texts.en,
    defaultLanguage: isLanguage(language) ? language : 'en',
    texts,
  };
}

/** One text of a PUT body: a string within the rules, or null for the built-in text; 400 naming `field`. */
function checkText(value: unknown, field: string): string | null {
  if (value === null) return null;
  if (typeof value !== 'string') throw badRequest(`'${field}' must be a string (or null for the default)`);
  if (value.length > TEXT_MAX) throw badRequest(`'${field}' is ${value.length} characters long; at most ${TEXT_MAX} are allowed`);
  if (CONTROL.test(value)) throw badRequest(`'${field}' contains a control character`);
  if (value.trim() === '') throw badRequest(`'${field}' must not be empty (send null for the default text)`);
  return value;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The `texts` of a PUT body: `{"nl": {"defaultPageText": "…"}, …}`; 400 naming an unknown language or field. */
function checkTexts(value: unknown, patch: PageSettingsPatch): void {
  if (!isObject(value)) throw badRequest(`'texts' must be an object by language, such as {"nl": {"resultPageText": "…"}}`);
  for (const [language, fields] of Object.entries(value)) {
    const lang = parseLanguage(language, 'texts', false) as Language;
    if (!isObject(fields)) throw badRequest(`'texts.${language}' must be an object with any of ${TEXT_NAMES.join(', ')}`);
    const into = ((patch.texts ??= {})[lang] ??= {});
    for (const [name, text] of Object.entries(fields)) {
      if (!(TEXT_NAMES as readonly string[]).includes(name)) throw badRequest(`Unknown field 'texts.${language}.${name}'; the fields are ${TEXT_NAMES.join(', ')}`);
      into[name as keyof PageTexts] = checkText(text, `texts.${language}.${name}`);
    }
  }
}

/** Checks a PUT body; throws a 400 naming the first problem. */
export function parsePageSettingsPatch(body: unknown): PageSettingsPatch {
  if (body === undefined) throw badRequest('Send a JSON object with any of: ' + TOP_LEVEL.join(', '));
  if (!isObject(body)) throw badRequest('The body must be a JSON object');
  const patch: PageSettingsPatch = {};
  for (const [name, value] of Object.entries(body)) {
    if (!TOP_LEVEL.includes(name)) throw badRequest(`Unknown field '${name}'; the fields are ${TOP_LEVEL.join(', ')}`);
    if (name === 'companyName') {
      if (value !== null && typeof value !== 'string') throw badRequest(`'companyName' must be a string (or null for the default)`);
      if (typeof value === 'string' && value.length > COMPANY.maxLength) throw badRequest(`'companyName' is ${value.length} characters long; at most ${COMPANY.maxLength} are allowed`);
      if (typeof value === 'string' && CONTROL.test(value)) throw badRequest(`'companyName' contains a control character`);
      patch.companyName = value;
    } else if (name === 'defaultLanguage') {
      patch.defaultLanguage = parseLanguage(value, 'defaultLanguage');
    } else if (name !== 'texts') {
      (patch.english ??= {})[name as keyof PageTexts] = checkText(value, name);
    }
  }
  if ('texts' in body) checkTexts(body.texts, patch);
  return patch;
}

/** The settings as the audit log compares them: one flat field per value (English texts under their old names). */
function audited(s: PageSettings): Record<string, string> {
  const out: Record<string, string> = { companyName: s.companyName, defaultPageText: s.defaultPageText, confirmPageText: s.confirmPageText, resultPageText: s.resultPageText };
  out.defaultLanguage = s.defaultLanguage;
  for (const l of LANGUAGES) if (l !== 'en') for (const n of TEXT_NAMES) out[`texts.${l}.${n}`] = s.texts[l][n];
  return out;
}

/**
 * A top-level English text and `texts.en`'s are one setting. Sent both (a client that sends back what GET gave,
 * with one of them edited), the one that differs from the stored text wins; both changed and different → 400.
 */
function englishText(name: keyof PageTexts, patch: PageSettingsPatch, before: PageSettings): string | null | undefined {
  const top = patch.english?.[name];
  const nested = patch.texts?.en?.[name];
  if (top === undefined || nested === undefined || top === nested) return top !== undefined ? top : nested;
  const stored = before.texts.en[name];
  const effective = (v: string | null) => v ?? BUILT_IN_TEXTS.en[name];
  if (effective(top) === stored) return nested;
  if (effective(nested) === stored) return top;
  throw badRequest(`'${name}' and 'texts.en.${name}' are one setting and were sent with two new values: send one of them`);
}

/** Applies a checked patch in one transaction, audited with the effective values before → after; answers the settings. */
export async function updatePageSettings(store: Store, patch: PageSettingsPatch): Promise<PageSettings> {
  const upsert = 'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value';
  const after = await store.transaction(async (tx) => {
    const before = await readPageSettings(tx);
    const writes: [string, string | null | undefined][] = [
      [COMPANY.key, patch.companyName],
      [DEFAULT_LANGUAGE_KEY, patch.defaultLanguage],
      ...LANGUAGES.flatMap((l) =>
        TEXT_NAMES.map((n): [string, string | null | undefined] => [textKey(l, n), l === 'en' ? englishText(n, patch, before) : patch.texts?.[l]?.[n]]),
      ),
    ];
    for (const [key, value] of writes) {
      if (value === undefined) continue;
      if (value === null) await tx.run('DELETE FROM settings WHERE key = ?', [key]);
      else await tx.run(upsert, [key, JSON.stringify(value)]);
    }
    const after = await readPageSettings(tx);
    const changes = diffChanges(audited(before), audited(after));
    if (Object.keys(changes).length > 0) await recordAudit(tx, { action: 'updated', entity: 'optout-settings', entityId: null, changes });
    return after;
  });
  localWrites++; // after the commit: a reader on another connection cannot cache the old values under the new count
  return after;
}
