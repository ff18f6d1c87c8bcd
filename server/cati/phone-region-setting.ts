/**
 * The company's phone region (CONTRACT §14): a stored setting, not only a start flag. Every place that
 * normalises a telephone number (the blacklist's create/update/Import, Controller.Check, and any later
 * feature such as sample scrubbing) reads it through `phoneRegion` here, never from the configuration.
 * It is read from the database on every call (one primary-key lookup), so a change through one server is
 * seen at once by every other server on the same PostgreSQL database.
 */
import type { CountryCode } from 'libphonenumber-js';
import type { Queryable } from '../db/store.ts';
import { storedRegion } from './blacklist-region.ts';
import { checkPhoneRegion, normaliseTelephoneNumber, type Normalised, type NumberType } from './phone-region.ts';

/** The stored phone region (upper-case ISO 3166 alpha-2), or null: numbers are then compared digit by digit. */
export async function phoneRegion(db: Queryable): Promise<CountryCode | null> {
  const stored = await storedRegion(db);
  return stored ? checkPhoneRegion(stored) : null;
}

/** Normalises a telephone number (or a StartWith prefix) under the stored region, as the blacklist stores and compares it. */
export async function normalisePhoneNumber(db: Queryable, input: unknown, type: NumberType = 'Equal'): Promise<Normalised> {
  return normaliseTelephoneNumber(input, type, await phoneRegion(db));
}
