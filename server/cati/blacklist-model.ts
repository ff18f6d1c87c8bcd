/**
 * The telephone blacklist's OData model (TelephoneBlacklistItem, docs/cati-api.md#blacklist), its operations, and the
 * number normalisation rule shared by every write and by Check.
 */
import type { CountryCode } from 'libphonenumber-js';
import { badRequest } from '../errors.ts';
import type { EntityModel, FunctionDef } from '../odata/model.ts';
import { normaliseTelephoneNumber, type Normalised } from '../phone/phone-region.ts';

export const BLACKLIST_TYPES = ['Equal', 'StartWith'] as const;
export type BlacklistType = (typeof BLACKLIST_TYPES)[number];

export const MAX_COMMENT_LENGTH = 255;
/** Seed §8: at most 10000 numbers per Import call. */
export const MAX_IMPORT_ITEMS = 10000;
/** How many invalid items an Import answer lists. */
export const MAX_REPORTED_INVALID = 100;

export const blacklistModel: EntityModel = {
  typeName: 'TelephoneBlacklistItem',
  setName: 'blacklist',
  key: ['Id'],
  from: 'blacklist',
  etagColumn: 'version',
  properties: [
    { name: 'Id', column: 'id', type: 'Edm.Int32', computed: true },
    { name: 'TelephoneNumber', column: 'telephone_number', type: 'Edm.String' },
    { name: 'Type', column: 'type', type: 'Edm.String', enumName: 'BlacklistType', enumValues: BLACKLIST_TYPES },
    { name: 'Comment', column: 'comment', type: 'Edm.String', nullable: true },
    { name: 'Created', column: 'created', type: 'Edm.DateTimeOffset', computed: true },
  ],
};

/** Answer of Controller.Check: `{"value": bool, "MatchedId": id|null}`. */
export const checkResultModel: EntityModel = {
  typeName: 'BlacklistCheckResult',
  setName: null,
  key: [],
  properties: [
    { name: 'value', type: 'Edm.Boolean' },
    { name: 'MatchedId', type: 'Edm.Int32', nullable: true },
    { name: 'Normalized', type: 'Edm.String' },
  ],
};

/** One rejected element of an Import: its 0-based index, the value as sent, and why. */
export const importErrorModel: EntityModel = {
  typeName: 'BlacklistImportError',
  setName: null,
  key: [],
  properties: [
    { name: 'Index', type: 'Edm.Int32' },
    { name: 'Value', type: 'Edm.String', nullable: true },
    { name: 'Message', type: 'Edm.String' },
  ],
};

/** Answer of Controller.Import. */
export const importResultModel: EntityModel = {
  typeName: 'BlacklistImportResult',
  setName: null,
  key: [],
  properties: [
    { name: 'Added', type: 'Edm.Int32' },
    { name: 'Duplicates', type: 'Edm.Int32' },
    { name: 'Invalid', type: 'Edm.Int32' },
    { name: 'InvalidItems', type: 'Edm.String', complexType: 'BlacklistImportError', collection: true, virtual: true },
  ],
};

export const checkFunction: FunctionDef = {
  name: 'Check',
  bindingType: 'TelephoneBlacklistItem',
  boundToCollection: true,
  parameters: [{ name: 'telephoneNumber', type: 'Edm.String' }],
  returnType: 'Controller.BlacklistCheckResult',
  sideEffectFree: true,
};

/** One element of Import's BlackListItems as $metadata declares it (a plain string is accepted too). */
export const importItemType: EntityModel = {
  typeName: 'BlacklistImportItem',
  setName: null,
  key: [],
  properties: [
    { name: 'TelephoneNumber', type: 'Edm.String' },
    { name: 'Type', type: 'Edm.String', enumName: 'BlacklistType', enumValues: BLACKLIST_TYPES, nullable: true },
    { name: 'Comment', type: 'Edm.String', nullable: true },
  ],
};

/** Body: `{"BlackListItems": [...]}` (strings or {TelephoneNumber, Type, Comment}) or `{"BlackListItems": {"Items": [...]}}`. */
export const importAction: FunctionDef = {
  name: 'Import',
  bindingType: 'TelephoneBlacklistItem',
  boundToCollection: true,
  action: true,
  parameters: [],
  bodyParameters: [{ name: 'BlackListItems', type: `Collection(Controller.${importItemType.typeName})` }],
  returnType: 'Controller.BlacklistImportResult',
};

/**
 * Normalises a telephone number or prefix (phone-region.ts): the `(0)` after `+CC` dropped, spaces,
 * `-`, `.`, `()` and a leading `+` stripped, 1..32 digits; under a phone region Equal numbers and
 * StartWith prefixes become international digits. Returns the digits or an error message naming the problem.
 */
export function normaliseNumber(input: unknown, type: BlacklistType = 'Equal', region: CountryCode | null = null): Normalised {
  return normaliseTelephoneNumber(input, type, region);
}

/** Like normaliseNumber, but throws a 400. */
export function requireNumber(input: unknown, type: BlacklistType = 'Equal', region: CountryCode | null = null): string {
  const r = normaliseNumber(input, type, region);
  if (!r.ok) throw badRequest(r.message);
  return r.value;
}

/** Validates a Type value (absent → Equal). */
export function parseType(input: unknown): { ok: true; value: BlacklistType } | { ok: false; message: string } {
  if (input === undefined || input === null) return { ok: true, value: 'Equal' };
  if (typeof input === 'string' && (BLACKLIST_TYPES as readonly string[]).includes(input)) return { ok: true, value: input as BlacklistType };
  return { ok: false, message: `Type must be one of ${BLACKLIST_TYPES.join(', ')}, not ${JSON.stringify(input)}` };
}
