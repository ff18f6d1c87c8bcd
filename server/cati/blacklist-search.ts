/**
 * `GET /cati/blacklist/Controller.Search(text='…')` (docs/cati-api.md#blacklist-search): the blacklist screen's
 * search. The text is read as a number the way Controller.Check reads it (the company's phone region included),
 * and also as a fragment: a row matches when its stored number contains the text's normalised digits (as a whole
 * number, as a prefix, or as the digits typed) or its comment contains the text, in any case. The result is a
 * collection of blacklist items that takes `$filter`, `$orderby`, `$top`, `$skip`, `$count` and `$select`.
 */
import type { CountryCode } from 'libphonenumber-js';
import type { CollectionScope } from '../odata/collection-query.ts';
import type { FunctionDef } from '../odata/model.ts';
import { normaliseTelephoneNumber } from '../phone/phone-region.ts';

/** The function as $metadata declares it. */
export const searchFunction: FunctionDef = {
  name: 'Search',
  bindingType: 'TelephoneBlacklistItem',
  boundToCollection: true,
  parameters: [{ name: 'text', type: 'Edm.String' }],
  returnType: 'Collection(Controller.TelephoneBlacklistItem)',
  sideEffectFree: true,
};

const MAX_TEXT = 200;
/** What a typed phone number may hold besides digits. */
const PHONE_TEXT = /^[\d\s+\-()./]+$/;

/** `LIKE` text for "contains `s`", with `\` escaping the pattern characters. */
const containsPattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The digit strings a typed text stands for: as a whole number, as a prefix, and as typed (empty when it is no number). */
export function searchDigits(text: string, region: CountryCode | null): string[] {
  if (!PHONE_TEXT.test(text) || !/\d/.test(text)) return [];
  const out = new Set<string>([text.replace(/\D/g, '')]);
  for (const type of ['Equal', 'StartWith'] as const) {
    const n = normaliseTelephoneNumber(text, type, region);
    if (n.ok) out.add(n.value);
  }
  return [...out].filter((d) => d !== '');
}

/** The scope of a search (undefined: an empty text finds every row). */
export function searchScope(text: unknown, region: CountryCode | null): CollectionScope | undefined {
  const trimmed = typeof text === 'string' ? text.trim().slice(0, MAX_TEXT) : '';
  if (trimmed === '') return undefined;
  const digits = searchDigits(trimmed, region);
  const numberTests = digits.map(() => "telephone_number LIKE ? ESCAPE '\\'");
  return {
    where: `(${[...numberTests, "lower(comment) LIKE ? ESCAPE '\\'"].join(' OR ')})`,
    params: [...digits.map(containsPattern), containsPattern(trimmed.toLowerCase())],
  };
}
