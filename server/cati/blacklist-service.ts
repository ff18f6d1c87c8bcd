/**
 * Telephone blacklist operations over SQLite: create, update, delete, bulk import (one transaction) and
 * the dialer's Check (Equal and StartWith rules). Plain functions over the Store; the HTTP side is blacklist-set.ts.
 */
import { setImmediate as yieldLoop } from 'node:timers/promises';
import type { CountryCode } from 'libphonenumber-js';
import { diffChanges, recordAudit, type Actor } from '../audit/audit-log.ts';
import { insertNewReturningIds } from '../db/bulk.ts';
import type { Queryable, Store } from '../db/store.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { changeList, entityRecord, publishChange, publishChanges, wireRecord, type Change, type EventList } from '../events/publisher.ts';
import type { Row } from '../odata/collection-query.ts';
import { checkIfMatch } from '../odata/format.ts';
import {
  blacklistModel,
  MAX_COMMENT_LENGTH,
  MAX_IMPORT_ITEMS,
  MAX_REPORTED_INVALID,
  normaliseNumber,
  parseType,
  requireNumber,
  type BlacklistType,
} from './blacklist-model.ts';

const WRITABLE = new Set(['TelephoneNumber', 'Type', 'Comment']);
const IGNORED = new Set(['Id', 'Created']);

interface Fields {
  /** The number as sent (a string that passed the digits-only rule); normalised with the item's Type and the region. */
  TelephoneNumber?: string;
  Type?: BlacklistType;
  Comment?: string | null;
}

/** Validates a TelephoneBlacklistItem body; unknown properties → 400, read-only ones (Id, Created) ignored. */
export function parseItemBody(body: Record<string, unknown>, requireNumberField: boolean): Fields {
  if (Array.isArray(body)) throw badRequest('The body must be one TelephoneBlacklistItem object, not an array');
  for (const name of Object.keys(body)) {
    if (!WRITABLE.has(name) && !IGNORED.has(name) && !name.startsWith('@')) throw badRequest(`Unknown property '${name}' in the body`);
  }
  const out: Fields = {};
  if (body.TelephoneNumber !== undefined || requireNumberField) {
    if (body.TelephoneNumber === undefined || body.TelephoneNumber === null) throw badRequest('TelephoneNumber is required');
    requireNumber(body.TelephoneNumber); // letters, emptiness, length → 400 before anything else
    out.TelephoneNumber = body.TelephoneNumber as string;
  }
  if (body.Type !== undefined) {
    const t = parseType(body.Type);
    if (!t.ok) throw badRequest(t.message);
    out.Type = t.value;
  } else if (requireNumberField) out.Type = 'Equal';
  if (body.Comment !== undefined) {
    if (body.Comment !== null && typeof body.Comment !== 'string') throw badRequest('Comment must be a string or null');
    if (typeof body.Comment === 'string' && body.Comment.length > MAX_COMMENT_LENGTH) {
      throw badRequest(`Comment is longer than ${MAX_COMMENT_LENGTH} characters`);
    }
    out.Comment = body.Comment;
  }
  return out;
}

const duplicate = (id: number) =>
  conflict(`This number is already blacklisted with the same Type (Id ${id})`, [{ code: 'ExistingId', target: 'Id', message: String(id) }]);

function findId(db: Queryable, number: string, type: string): Promise<number | undefined> {
  return db.value<number>('SELECT id FROM blacklist WHERE telephone_number = ? AND type = ?', [number, type]);
}

/** Adds a number; 409 with the existing Id when the same number and type exist. Returns the new Id. */
export async function createItem(store: Store, fields: Fields, region: CountryCode | null = null, now = Date.now()): Promise<number> {
  const number = requireNumber(fields.TelephoneNumber, fields.Type, region);
  const id = await store.transaction(async (tx) => {
    const existing = await findId(tx, number, fields.Type!);
    if (existing !== undefined) throw duplicate(existing);
    const newId = (await tx.value<number>(
      'INSERT INTO blacklist (telephone_number, type, comment, created) VALUES (?, ?, ?, ?) RETURNING id',
      [number, fields.Type, fields.Comment ?? null, now],
    ))!;
    await recordAudit(tx, { action: 'created', entity: 'blacklist', entityId: newId, changes: { TelephoneNumber: number, Type: fields.Type, Comment: fields.Comment ?? null } });
    await publishChange(tx, { type: 'blacklist', action: 'created', id: newId, record: await entityRecord(tx, blacklistModel, newId) });
    return newId;
  });
  return id;
}

interface CurrentRow {
  id: number;
  telephone_number: string;
  type: string;
  comment: string | null;
  version: number;
}

async function current(db: Queryable, id: number): Promise<CurrentRow> {
  const row = await db.get<CurrentRow>('SELECT id, telephone_number, type, comment, version FROM blacklist WHERE id = ?', [id]);
  if (!row) throw notFound(`No blacklist item with Id ${id}`);
  return row;
}

/**
 * Updates the fields present (PUT and PATCH); If-Match checked against the current version (412);
 * duplicate → 409; audited with the fields that changed.
 */
export async function updateItem(store: Store, id: number, fields: Fields, ifMatch: string | undefined, region: CountryCode | null = null): Promise<void> {
  await store.transaction(async (tx) => {
    const row = await current(tx, id);
    checkIfMatch(ifMatch, row.version);
    const type = fields.Type ?? (row.type as BlacklistType);
    const number = fields.TelephoneNumber === undefined ? row.telephone_number : requireNumber(fields.TelephoneNumber, type, region);
    const other = await findId(tx, number, type);
    if (other !== undefined && other !== id) throw duplicate(other);
    const comment = fields.Comment === undefined ? row.comment : fields.Comment;
    await tx.run('UPDATE blacklist SET telephone_number = ?, type = ?, comment = ?, version = version + 1 WHERE id = ?', [number, type, comment, id]);
    const before = { TelephoneNumber: row.telephone_number, Type: row.type, Comment: row.comment };
    await recordAudit(tx, { action: 'updated', entity: 'blacklist', entityId: id, changes: diffChanges(before, { TelephoneNumber: number, Type: type, Comment: comment }) });
    await publishChange(tx, { type: 'blacklist', action: 'updated', id, record: await entityRecord(tx, blacklistModel, id) });
  });
}

/** Deletes an item; 404 if absent, 412 on a stale If-Match. */
export async function deleteItem(store: Store, id: number, ifMatch: string | undefined): Promise<void> {
  await store.transaction(async (tx) => {
    const row = await current(tx, id);
    checkIfMatch(ifMatch, row.version);
    const record = await entityRecord(tx, blacklistModel, id);
    await tx.run('DELETE FROM blacklist WHERE id = ?', [id]);
    await recordAudit(tx, { action: 'deleted', entity: 'blacklist', entityId: id, changes: { TelephoneNumber: row.telephone_number, Type: row.type, Comment: row.comment } });
    await publishChange(tx, { type: 'blacklist', action: 'deleted', id, record });
  });
}

export interface ImportInvalidItem {
  /** 0-based position in BlackListItems. */
  Index: number;
  /** The TelephoneNumber as sent (JSON text when it was not a string). */
  Value: string | null;
  Message: string;
}

export interface ImportResult {
  Added: number;
  Duplicates: number;
  Invalid: number;
  InvalidItems: ImportInvalidItem[];
}

/** Extracts the list from `{BlackListItems: [...]}` or `{BlackListItems: {Items: [...]}}`; >10000 → 400. */
export function importItemsOf(body: Record<string, unknown>): unknown[] {
  let items = body.BlackListItems;
  if (items && typeof items === 'object' && !Array.isArray(items)) items = (items as { Items?: unknown }).Items;
  if (!Array.isArray(items)) throw badRequest('The body must be {"BlackListItems": [...]} (numbers as strings or {TelephoneNumber, Type} objects)');
  if (items.length > MAX_IMPORT_ITEMS) throw badRequest(`BlackListItems holds ${items.length} items; at most ${MAX_IMPORT_ITEMS} per call`);
  return items;
}

/** An item's value as reported back for an invalid item. */
const asText = (v: unknown) => (typeof v === 'string' ? v : v === undefined ? null : JSON.stringify(v));

function parseImportItem(
  item: unknown,
  region: CountryCode | null,
): { ok: true; number: string; type: BlacklistType; comment: string | null } | { ok: false; value: string | null; message: string } {
  if (typeof item === 'string') {
    const n = normaliseNumber(item, 'Equal', region);
    return n.ok ? { ok: true, number: n.value, type: 'Equal', comment: null } : { ok: false, value: item, message: n.message };
  }
  if (!item || typeof item !== 'object' || Array.isArray(item)) {
    return { ok: false, value: asText(item), message: 'An item must be a string or an object {TelephoneNumber, Type}' };
  }
  const o = item as Record<string, unknown>;
  const value = asText(o.TelephoneNumber);
  const unknown = Object.keys(o).find((k) => !WRITABLE.has(k) && !IGNORED.has(k));
  if (unknown) return { ok: false, value, message: `Unknown property '${unknown}'` };
  const t = parseType(o.Type);
  if (!t.ok) return { ok: false, value, message: t.message };
  const n = normaliseNumber(o.TelephoneNumber, t.value, region);
  if (!n.ok) return { ok: false, value, message: n.message };
  if (o.Comment !== undefined && o.Comment !== null && (typeof o.Comment !== 'string' || o.Comment.length > MAX_COMMENT_LENGTH)) {
    return { ok: false, value, message: `Comment must be a string of at most ${MAX_COMMENT_LENGTH} characters` };
  }
  return { ok: true, number: n.value, type: t.value, comment: (o.Comment as string | null | undefined) ?? null };
}

/** Items normalised under a phone region between two turns of the event loop (about 5-20 ms of work). */
const PARSE_SLICE = 1000;

/**
 * Normalised items ready to store, as columns: a file import's million rows are three arrays, not a million
 * objects (and no array per row on the way into the database). `startWith[i]` is 1 for StartWith, 0 for Equal.
 */
export interface ValidItems {
  numbers: string[];
  startWith: Uint8Array | number[];
  comments: (string | null)[];
}

const IMPORT_COLUMNS = ['telephone_number', 'type', 'comment', 'created'] as const;
/** The table's unique key: an import adds a (number, Type) once. */
const IMPORT_KEY = ['telephone_number', 'type'] as const;

const typeOf = (startWith: number | undefined): BlacklistType => (startWith === 1 ? 'StartWith' : 'Equal');

/**
 * Stores the import's new items and answers them as GET reads them: insertNewReturningIds keeps the first of
 * repeats within the import and leaves out those stored already (db/bulk.ts), and hands back which went in with
 * their ids. Before, each 500-row INSERT … ON CONFLICT DO NOTHING RETURNING handed back four columns per new row
 * (numbers as strings) and doubled the cost of the write itself on SQLite.
 */
async function insertNew(tx: Queryable, items: ValidItems, now: number): Promise<EventList<Change>> {
  const { numbers, startWith, comments } = items;
  const rows = {
    length: numbers.length,
    value: (r: number, c: number) => (c === 0 ? numbers[r] : c === 1 ? typeOf(startWith[r]) : c === 2 ? comments[r] : now),
  };
  const { index, ids } = await insertNewReturningIds(tx, 'blacklist', IMPORT_COLUMNS, rows, IMPORT_KEY);
  // The items added, as the import's /events changes (`created`, each record as GET reads it), made when sent.
  return changeList(index.length, (i) => {
    const at = index[i]!;
    const row: Row = { Id: ids[i], TelephoneNumber: numbers[at], Type: typeOf(startWith[at]), Comment: comments[at], Created: now, '@etag': 1 };
    return { type: 'blacklist', action: 'created', id: ids[i]!, record: wireRecord(blacklistModel, row) };
  });
}

/** Normalises import items, each distinct (item, region) once: a file repeats numbers, and libphonenumber-js is the costly part. */
function importParser(region: CountryCode | null): (item: unknown) => ReturnType<typeof parseImportItem> {
  if (region === null) return (item) => parseImportItem(item, null); // the digits rule alone costs less than a lookup
  const seen = new Map<string, ReturnType<typeof parseImportItem>>();
  return (item) => {
    if (typeof item !== 'string') return parseImportItem(item, region);
    let p = seen.get(item);
    if (p === undefined) seen.set(item, (p = parseImportItem(item, region)));
    return p;
  };
}

/**
 * Stores every valid item in one transaction (insertNew: the /events records need no second read) with the
 * import's audit row; duplicates (in the table or the import) are counted, not stored.
 */
export async function importItems(store: Store, items: unknown[], region: CountryCode | null = null, now = Date.now()): Promise<ImportResult> {
  const result: ImportResult = { Added: 0, Duplicates: 0, Invalid: 0, InvalidItems: [] };
  const numbers: string[] = [];
  const startWith: number[] = [];
  const comments: (string | null)[] = [];
  const parse = importParser(region);
  for (let index = 0; index < items.length; index++) {
    // With a phone region each number costs libphonenumber-js some 5-40 µs: 10,000 of them would hold the event
    // loop past the documented 50 ms, so other requests get a turn every PARSE_SLICE items.
    if (region !== null && index > 0 && index % PARSE_SLICE === 0) await yieldLoop();
    const p = parse(items[index]);
    if (p.ok) {
      numbers.push(p.number);
      startWith.push(p.type === 'StartWith' ? 1 : 0);
      comments.push(p.comment);
    } else {
      result.Invalid++;
      if (result.InvalidItems.length < MAX_REPORTED_INVALID) result.InvalidItems.push({ Index: index, Value: p.value, Message: p.message });
    }
  }
  const stored = await storeItems(store, { numbers, startWith, comments }, result.Invalid, now);
  result.Added = stored.Added;
  result.Duplicates = stored.Duplicates;
  return result;
}

/**
 * Stores normalised items in one transaction with one audit row (`imported`, the counts and `extra`) and the
 * added ones' events for /events: Controller.Import's and the file import's write.
 */
export async function storeItems(
  store: Store,
  valid: ValidItems,
  invalid: number,
  now = Date.now(),
  extra: Record<string, unknown> = {},
  actor?: Actor,
): Promise<{ Added: number; Duplicates: number }> {
  const added = await store.transaction(async (tx) => {
    const rows = await insertNew(tx, valid, now); // inside: a transaction the engine retries (PostgreSQL serialization) starts afresh
    const changes = { ...extra, Added: rows.length, Duplicates: valid.numbers.length - rows.length, Invalid: invalid };
    await recordAudit(tx, { action: 'imported', entity: 'blacklist', entityId: null, changes }, now, actor);
    await publishChanges(tx, rows); // in the transaction: the events go out once it commits (docs/events.md#exactly-once)
    return rows;
  });
  return { Added: added.length, Duplicates: valid.numbers.length - added.length };
}

/**
 * The dialer's question: is this number blacklisted? An Equal entry matches the same number; a StartWith
 * entry matches every number it prefixes (itself included). Equal wins, then the longest prefix.
 * Each lookup is a probe of the UNIQUE (telephone_number, type) index. `Normalized`: the digits compared (docs/cati-api.md#decisions).
 */
export async function checkNumber(db: Queryable, input: unknown, region: CountryCode | null = null): Promise<{ value: boolean; MatchedId: number | null; Normalized: string }> {
  const number = requireNumber(input, 'Equal', region);
  const equal = await findId(db, number, 'Equal');
  if (equal !== undefined) return { value: true, MatchedId: equal, Normalized: number };
  const prefixes = Array.from({ length: number.length }, (_, i) => number.slice(0, i + 1));
  const id = await db.value<number>(
    `SELECT id FROM blacklist WHERE type = 'StartWith' AND telephone_number IN ${db.dialect.jsonValues('text')} ORDER BY length(telephone_number) DESC, id LIMIT 1`,
    [JSON.stringify(prefixes)],
  );
  return { value: id !== undefined, MatchedId: id ?? null, Normalized: number };
}
