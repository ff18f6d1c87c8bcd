/**
 * Telephone numbers of the blacklist under a phone region (docs/cati-api.md#phone-region, with libphonenumber-js):
 * `+31 (0)20 555-0198`, `0031 20 555 0198` and `020 555 0198` (region NL) all become `31205550198`.
 *
 * Precisely:
 * - Always: a `(0)` right after a leading `+CC` is dropped; then spaces, `-`, `.`, `(`, `)` and one
 *   leading `+` are stripped and what remains must be 1..32 digits (letters → 400, whatever the region).
 * - No region: those digits are the number (docs/cati-api.md#blacklist).
 * - Equal numbers (and Controller.Check input) that libphonenumber-js finds possible for the region
 *   (international input: for its own country) become country code + national significant number;
 *   input that does not parse keeps the digits-only rule.
 * - StartWith prefixes in national form drop the region's trunk prefix and gain its country code
 *   (`020` in NL → `3120`); in international form (`+`, or the region's IDD such as `00`) they drop that.
 * - Re-normalising stored digits when the region changes: a number that starts with the region's trunk
 *   prefix is read as national (an Equal number that is not possible so is then read as international);
 *   otherwise as international (as if after a `+`); when no reading is possible it stays as it is.
 */
import type { CountryCode } from 'libphonenumber-js';
import { phoneLib } from './phone-lib.ts';

/** Longest accepted number (digits after normalisation). */
export const MAX_NUMBER_DIGITS = 32;

export type NumberType = 'Equal' | 'StartWith';
export type Normalised = { ok: true; value: string } | { ok: false; message: string };

/** The region as libphonenumber-js knows it (upper-case ISO 3166 alpha-2), or null when it has no numbering plan. */
export function checkPhoneRegion(value: string): CountryCode | null {
  const region = value.trim().toUpperCase();
  return /^[A-Z]{2}$/.test(region) && phoneLib().isSupportedCountry(region) ? (region as CountryCode) : null;
}

/** The region's trunk (national) prefix, e.g. `0` in NL, `1` in US; undefined when it has none. */
export function trunkPrefix(region: CountryCode): string | undefined {
  const metadata = new (phoneLib().Metadata)();
  metadata.selectNumberingPlan(region);
  // The typings leave NumberingPlan's methods out; nationalPrefix() is its documented accessor.
  const plan = metadata.numberingPlan as unknown as { nationalPrefix(): string | undefined } | undefined;
  return plan?.nationalPrefix() || undefined;
}

/** `+31 (0)20 …` → `+31 20 …`: the `(0)` after a leading `+CC` is never part of the number. */
export function dropTrunkZero(input: string): string {
  return input.replace(/^(\s*\+\s*\d{1,3})\s*\(\s*0\s*\)/, '$1 ');
}

/**
 * The digits of `input` when it holds only ASCII digits, spaces, `-`, `.`, `(` and `)` and does not start
 * with `+` (so no `(0)` to drop): what digitsOnly answers for it, in one pass; undefined for anything else.
 */
function plainDigits(input: string): string | undefined {
  let digits = '';
  let from = 0;
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i);
    if (c >= 48 && c <= 57) continue;
    if (c !== 32 && c !== 45 && c !== 46 && c !== 40 && c !== 41) return undefined;
    digits += input.slice(from, i);
    from = i + 1;
  }
  digits = from === 0 ? input : digits + input.slice(from);
  return digits.length > 0 && digits.length <= MAX_NUMBER_DIGITS ? digits : undefined;
}

/** The docs/cati-api.md#blacklist rule: the digits of the input, or why it is not a telephone number. */
export function digitsOnly(input: string): Normalised {
  const plain = plainDigits(input);
  if (plain !== undefined) return { ok: true, value: plain };
  const stripped = dropTrunkZero(input).replace(/[\s\-.()]/g, '').replace(/^\+/, '');
  if (stripped === '') return { ok: false, message: 'TelephoneNumber is empty' };
  if (!/^\d+$/.test(stripped)) {
    return { ok: false, message: `TelephoneNumber '${input}' may contain only digits, spaces, '-', '.', '()' and a leading '+'` };
  }
  if (stripped.length > MAX_NUMBER_DIGITS) return { ok: false, message: `TelephoneNumber has more than ${MAX_NUMBER_DIGITS} digits` };
  return { ok: true, value: stripped };
}

const fits = (digits: string | undefined): digits is string => !!digits && /^\d+$/.test(digits) && digits.length <= MAX_NUMBER_DIGITS;

/** Country code + national significant number of a possible number, else undefined. */
function possibleNumber(text: string, region: CountryCode): string | undefined {
  const parsed = phoneLib().parsePhoneNumberFromString(text, region);
  if (!parsed || !parsed.isPossible()) return undefined;
  const digits = `${parsed.countryCallingCode}${parsed.nationalNumber}`;
  return fits(digits) ? digits : undefined;
}

/** A StartWith prefix in international form (`+`/IDD) keeps its digits; in national form it drops the trunk prefix and gains the country code. */
function prefixNumber(text: string, region: CountryCode): string | undefined {
  const typed = new (phoneLib().AsYouType)(region);
  typed.input(text);
  const national = typed.getNationalNumber();
  const digits = typed.isInternational() ? (typed.getCallingCode() ? `${typed.getCallingCode()}${national}` : undefined) : `${phoneLib().getCountryCallingCode(region)}${national}`;
  return fits(digits) ? digits : undefined;
}

/**
 * Normalises a blacklist number or prefix (see the file comment). Returns the digits to store and match,
 * or an error message for a 400 (not a string, empty, letters or other characters, too long).
 */
export function normaliseTelephoneNumber(input: unknown, type: NumberType, region: CountryCode | null): Normalised {
  if (typeof input !== 'string') return { ok: false, message: 'TelephoneNumber must be a string' };
  const digits = digitsOnly(input);
  if (!digits.ok || !region) return digits;
  const text = dropTrunkZero(input);
  const normalised = type === 'Equal' ? possibleNumber(text, region) : prefixNumber(text, region);
  return { ok: true, value: normalised ?? digits.value };
}

/** The stored digits read under a (new) region, or the same digits when no reading is possible. */
export function renormaliseStored(digits: string, type: NumberType, region: CountryCode, trunk = trunkPrefix(region)): string {
  const national = trunk !== undefined && digits.startsWith(trunk);
  if (type === 'StartWith') return national ? (prefixNumber(digits, region) ?? digits) : digits;
  return (national ? possibleNumber(digits, region) : undefined) ?? possibleNumber(`+${digits}`, region) ?? digits;
}
