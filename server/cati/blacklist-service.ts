/**
 * Telephone blacklist operations over SQLite: create, update, delete, bulk import (one transaction) and
 * the dialer's Check (Equal and StartWith rules). Plain functions over Db; the HTTP side is blacklist-set.ts.
 */
import type { CountryCode } from 'libphonenumber-js';
import { diffChanges, recordAuditSync } from '../audit/audit-log.ts';
import type { Db } from '../db/open.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { entityRecordSync, entityRecordsSync, publishChangeSync, publishChangesSync } from '../events/publisher.ts';
import { prepareCached } from '../odata/collection-query.ts';
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

function findId(db: Db, number: string, type: string): number | undefined {
  return prepareCached(db, 'SELECT id FROM blacklist WHERE telephone_number = ? AND type = ?', 'pluck').get(number, type) as number | undefined;
}

/** Adds a number; 409 with the existing Id when the same number and type exist. Returns the new Id. */
export function createItem(db: Db, fields: Fields, region: CountryCode | null = null, now = Date.now()): number {
  const number = requireNumber(fields.TelephoneNumber, fields.Type, region);
  const id = db.transaction(() => {
    const existing = findId(db, number, fields.Type!);
    if (existing !== undefined) throw duplicate(existing);
    const r = db
      .prepare('INSERT INTO blacklist (telephone_number, type, comment, created) VALUES (?, ?, ?, ?)')
      .run(number, fields.Type, fields.Comment ?? null, now);
    const newId = Number(r.lastInsertRowid);
    recordAuditSync(db, { action: 'created', entity: 'blacklist', entityId: newId, changes: { TelephoneNumber: number, Type: fields.Type, Comment: fields.Comment ?? null } });
    return newId;
  }).immediate();
  publishChangeSync(db, { type: 'blacklist', action: 'created', id, record: entityRecordSync(db, blacklistModel, id) });
  return id;
}

interface CurrentRow {
  id: number;
  telephone_number: string;
  type: string;
  comment: string | null;
  version: number;
}

function current(db: Db, id: number): CurrentRow {
  const row = db.prepare('SELECT id, telephone_number, type, comment, version FROM blacklist WHERE id = ?').get(id) as CurrentRow | undefined;
  if (!row) throw notFound(`No blacklist item with Id ${id}`);
  return row;
}

/**
 * Updates the fields present (PUT and PATCH); If-Match checked against the current version (412);
 * duplicate → 409; audited with the fields that changed.
 */
export function updateItem(db: Db, id: number, fields: Fields, ifMatch: string | undefined, region: CountryCode | null = null): void {
  db.transaction(() => {
    const row = current(db, id);
    checkIfMatch(ifMatch, row.version);
    const type = fields.Type ?? (row.type as BlacklistType);
    const number = fields.TelephoneNumber === undefined ? row.telephone_number : requireNumber(fields.TelephoneNumber, type, region);
    const other = findId(db, number, type);
    if (other !== undefined && other !== id) throw duplicate(other);
    const comment = fields.Comment === undefined ? row.comment : fields.Comment;
    db.prepare('UPDATE blacklist SET telephone_number = ?, type = ?, comment = ?, version = version + 1 WHERE id = ?').run(number, type, comment, id);
    const before = { TelephoneNumber: row.telephone_number, Type: row.type, Comment: row.comment };
    recordAuditSync(db, { action: 'updated', entity: 'blacklist', entityId: id, changes: diffChanges(before, { TelephoneNumber: number, Type: type, Comment: comment }) });
  }).immediate();
  publishChangeSync(db, { type: 'blacklist', action: 'updated', id, record: entityRecordSync(db, blacklistModel, id) });
}

/** Deletes an item; 404 if absent, 412 on a stale If-Match. */
export function deleteItem(db: Db, id: number, ifMatch: string | undefined): void {
  const record = db.transaction(() => {
    const row = current(db, id);
    checkIfMatch(ifMatch, row.version);
    const last = entityRecordSync(db, blacklistModel, id);
    db.prepare('DELETE FROM blacklist WHERE id = ?').run(id);
    recordAuditSync(db, { action: 'deleted', entity: 'blacklist', entityId: id, changes: { TelephoneNumber: row.telephone_number, Type: row.type, Comment: row.comment } });
    return last;
  }).immediate();
  publishChangeSync(db, { type: 'blacklist', action: 'deleted', id, record });
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

function parseImportItem(
  item: unknown,
  region: CountryCode | null,
): { ok: true; number: string; type: BlacklistType; comment: string | null } | { ok: false; value: string | null; message: string } {
  const asText = (v: unknown) => (typeof v === 'string' ? v : v === undefined ? null : JSON.stringify(v));
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

/** Stores every valid item in one transaction; duplicates (in the table or the batch) are counted, not stored. */
export function importItems(db: Db, items: unknown[], region: CountryCode | null = null, now = Date.now()): ImportResult {
  const result: ImportResult = { Added: 0, Duplicates: 0, Invalid: 0, InvalidItems: [] };
  const insert = db.prepare('INSERT INTO blacklist (telephone_number, type, comment, created) VALUES (?, ?, ?, ?) ON CONFLICT (telephone_number, type) DO NOTHING');
  const added: number[] = [];
  db.transaction(() => {
    items.forEach((item, index) => {
      const p = parseImportItem(item, region);
      if (!p.ok) {
        result.Invalid++;
        if (result.InvalidItems.length < MAX_REPORTED_INVALID) result.InvalidItems.push({ Index: index, Value: p.value, Message: p.message });
        return;
      }
      const r = insert.run(p.number, p.type, p.comment, now);
      if (r.changes === 1) added.push(Number(r.lastInsertRowid));
      else result.Duplicates++;
    });
    recordAuditSync(db, { action: 'imported', entity: 'blacklist', entityId: null, changes: { Added: added.length, Duplicates: result.Duplicates, Invalid: result.Invalid } });
  }).immediate();
  result.Added = added.length;
  publishChangesSync(db, entityRecordsSync(db, blacklistModel, added).map((record) => ({ type: 'blacklist', action: 'created', id: record.Id as number, record })));
  return result;
}

/**
 * The dialer's question: is this number blacklisted? An Equal entry matches the same number; a StartWith
 * entry matches every number it prefixes (itself included). Equal wins, then the longest prefix.
 * Each lookup is a probe of the UNIQUE (telephone_number, type) index.
 */
export function checkNumber(db: Db, input: unknown, region: CountryCode | null = null): { value: boolean; MatchedId: number | null } {
  const number = requireNumber(input, 'Equal', region);
  const equal = findId(db, number, 'Equal');
  if (equal !== undefined) return { value: true, MatchedId: equal };
  const prefixes = Array.from({ length: number.length }, (_, i) => number.slice(0, i + 1));
  const id = prepareCached(
    db,
    "SELECT id FROM blacklist WHERE type = 'StartWith' AND telephone_number IN (SELECT value FROM json_each(?)) ORDER BY length(telephone_number) DESC, id LIMIT 1",
    'pluck',
  ).get(JSON.stringify(prefixes)) as number | undefined;
  return { value: id !== undefined, MatchedId: id ?? null };
}
