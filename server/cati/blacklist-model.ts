/**
 * The telephone blacklist's OData model (TelephoneBlacklistItem, CONTRACT §3), its operations, and the
 * number normalisation rule shared by every write and by Check.
 */
import { badRequest } from '../errors.ts';
import type { EntityModel, FunctionDef } from '../odata/model.ts';

export const BLACKLIST_TYPES = ['Equal', 'StartWith'] as const;
export type BlacklistType = (typeof BLACKLIST_TYPES)[number];

/** Longest accepted number (digits after normalisation). */
export const MAX_NUMBER_DIGITS = 32;
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
    { name: 'Id', column: 'id', type: 'Edm.Int32' },
    { name: 'TelephoneNumber', column: 'telephone_number', type: 'Edm.String' },
    { name: 'Type', column: 'type', type: 'Edm.String', enumName: 'BlacklistType', enumValues: BLACKLIST_TYPES },
    { name: 'Comment', column: 'comment', type: 'Edm.String', nullable: true },
    { name: 'Created', column: 'created', type: 'Edm.DateTimeOffset' },
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

/** Body: `{"BlackListItems": [...]}` (strings or {TelephoneNumber, Type, Comment}) or `{"BlackListItems": {"Items": [...]}}`. */
export const importAction: FunctionDef = {
  name: 'Import',
  bindingType: 'TelephoneBlacklistItem',
  boundToCollection: true,
  action: true,
  parameters: [],
  returnType: 'Controller.BlacklistImportResult',
};

/**
 * Normalises a telephone number: strips spaces, `-`, `.`, `(`, `)` and one leading `+`; what remains must
 * be 1..32 digits. Returns the digits or an error message naming the problem.
 */
export function normaliseNumber(input: unknown): { ok: true; value: string } | { ok: false; message: string } {
  if (typeof input !== 'string') return { ok: false, message: 'TelephoneNumber must be a string' };
  const stripped = input.replace(/[\s\-.()]/g, '').replace(/^\+/, '');
  if (stripped === '') return { ok: false, message: 'TelephoneNumber is empty' };
  if (!/^\d+$/.test(stripped)) {
    return { ok: false, message: `TelephoneNumber '${input}' may contain only digits, spaces, '-', '.', '()' and a leading '+'` };
  }
  if (stripped.length > MAX_NUMBER_DIGITS) return { ok: false, message: `TelephoneNumber has more than ${MAX_NUMBER_DIGITS} digits` };
  return { ok: true, value: stripped };
}

/** Like normaliseNumber, but throws a 400. */
export function requireNumber(input: unknown): string {
  const r = normaliseNumber(input);
  if (!r.ok) throw badRequest(r.message);
  return r.value;
}

/** Validates a Type value (absent → Equal). */
export function parseType(input: unknown): { ok: true; value: BlacklistType } | { ok: false; message: string } {
  if (input === undefined || input === null) return { ok: true, value: 'Equal' };
  if (typeof input === 'string' && (BLACKLIST_TYPES as readonly string[]).includes(input)) return { ok: true, value: input as BlacklistType };
  return { ok: false, message: `Type must be one of ${BLACKLIST_TYPES.join(', ')}, not ${JSON.stringify(input)}` };
}
