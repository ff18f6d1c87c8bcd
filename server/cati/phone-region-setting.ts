/**
 * The company's phone region (docs/cati-api.md#phone-region): a stored setting, not only a start flag. Every place that
 * normalises a telephone number (the blacklist's create/update/Import, Controller.Check, and any later
 * feature such as sample scrubbing) reads it through `phoneRegion` here, never from the configuration.
 * It is read from the database on every call (one primary-key lookup), so a change through one server is
 * seen at once by every other server on the same PostgreSQL database.
 */
import type { CountryCode } from 'libphonenumber-js';
import type { Queryable, Store } from '../db/store.ts';
import { applyPhoneRegion, storedRegion } from './blacklist-region.ts';
import { checkPhoneRegion } from '../phone/phone-region.ts';

/** The stored phone region (upper-case ISO 3166 alpha-2), or null: numbers are then compared digit by digit. */
export async function phoneRegion(db: Queryable): Promise<CountryCode | null> {
  const stored = await storedRegion(db);
  return stored ? checkPhoneRegion(stored) : null;
}

/**
 * A region proposed from outside (the desktop app's OS locale at first start, docs/cati-api.md#phone-region): stored only when
 * the company never had one stored (the user's choice, even "none", always stands). Answers whether it was stored.
 */
export async function proposePhoneRegion(store: Store, proposed: string): Promise<boolean> {
  const region = checkPhoneRegion(proposed);
  if (!region || (await storedRegion(store)) !== undefined) return false;
  return (await applyPhoneRegion(store, region)).changed;
}

/** The region part of a locale (`nl-NL` → `NL`; `nl` → its likely region `NL`), when it has a numbering plan; else null. */
export function regionFromLocale(locale: string | undefined): CountryCode | null {
  if (!locale) return null;
  try {
    const l = new Intl.Locale(locale.replace('_', '-'));
    const region = l.region ?? l.maximize().region;
    return region ? checkPhoneRegion(region) : null;
  } catch {
    return null;
  }
}
