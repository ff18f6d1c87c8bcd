/**
 * Outcome names and categories of ExtendedStatus codes (CONTRACT §9): create, update, delete, each audited
 * in its transaction. A code without a row counts as Other wherever categories are used.
 */
import { diffChanges, recordAuditSync } from '../audit/audit-log.ts';
import type { Db } from '../db/open.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { bodyObject, optEnum, optInt, rejectUnknown, reqString } from './body-fields.ts';
import { checkVersion } from './etag-check.ts';
import { OUTCOME_CATEGORIES, type OutcomeCategory } from './floor-models.ts';

const FIELDS = ['Code', 'Name', 'Category'];

interface OutcomeWire {
  Name: string;
  Category: OutcomeCategory;
}

function current(db: Db, code: number): OutcomeWire & { version: number } {
  const row = db.prepare('SELECT name, category, version FROM extended_statuses WHERE code = ?').get(code) as
    | { name: string; category: OutcomeCategory; version: number }
    | undefined;
  if (!row) throw notFound(`No outcome with Code ${code}`);
  return { Name: row.name, Category: row.category, version: row.version };
}

/** POST `/cati/extendedstatuses` {Code, Name, Category}: an existing Code → 409 naming it. */
export function createExtendedStatus(db: Db, body: unknown): number {
  const b = bodyObject(body, 'an outcome {Code, Name, Category}');
  rejectUnknown(b, FIELDS);
  const code = optInt(b, 'Code');
  if (code === undefined || code === null) throw badRequest('Code is required (the ExtendedStatus value this row names)');
  const name = reqString(b, 'Name', { max: 255 });
  const category = optEnum(b, 'Category', OUTCOME_CATEGORIES);
  if (category === undefined) throw badRequest(`Category is required: one of ${OUTCOME_CATEGORIES.join(', ')}`);
  db.transaction(() => {
    if (db.prepare('SELECT 1 FROM extended_statuses WHERE code = ?').get(code)) {
      throw conflict(`An outcome with Code ${code} already exists`, [{ code: 'ExistingId', target: 'Code', message: String(code) }]);
    }
    db.prepare('INSERT INTO extended_statuses (code, name, category) VALUES (?, ?, ?)').run(code, name, category);
    recordAuditSync(db, { action: 'created', entity: 'extendedstatuses', entityId: code, changes: { Code: code, Name: name, Category: category } });
  }).immediate();
  return code;
}

/** PUT/PATCH `/cati/extendedstatuses(code)`: changes Name and Category where present. */
export function updateExtendedStatus(db: Db, code: number, body: unknown, ifMatch?: string): void {
  const b = bodyObject(body, 'an outcome {Name, Category}');
  rejectUnknown(b, FIELDS);
  if (b.Code !== undefined && b.Code !== code) throw badRequest(`Code in the body does not match the key ${code}`);
  const name = b.Name === undefined ? undefined : reqString(b, 'Name', { max: 255 });
  const category = optEnum(b, 'Category', OUTCOME_CATEGORIES);
  db.transaction(() => {
    const { version, ...before } = current(db, code);
    checkVersion(version, ifMatch);
    const after: OutcomeWire = { Name: name ?? before.Name, Category: category ?? before.Category };
    db.prepare('UPDATE extended_statuses SET name = ?, category = ?, version = version + 1 WHERE code = ?').run(after.Name, after.Category, code);
    recordAuditSync(db, { action: 'updated', entity: 'extendedstatuses', entityId: code, changes: diffChanges({ ...before }, { ...after }) });
  }).immediate();
}

/** DELETE `/cati/extendedstatuses(code)`: the code then counts as Other. */
export function deleteExtendedStatus(db: Db, code: number, ifMatch?: string): void {
  db.transaction(() => {
    const { version, ...before } = current(db, code);
    checkVersion(version, ifMatch);
    db.prepare('DELETE FROM extended_statuses WHERE code = ?').run(code);
    recordAuditSync(db, { action: 'deleted', entity: 'extendedstatuses', entityId: code, changes: { Code: code, ...before } });
  }).immediate();
}
