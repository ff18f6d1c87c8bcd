/**
 * Outcome names and categories of ExtendedStatus codes (docs/cati-api.md#floor): create, update, delete, each audited
 * in its transaction. A code without a row counts as Other wherever categories are used.
 */
import { diffChanges, recordAudit } from '../audit/audit-log.ts';
import type { Queryable, Store } from '../db/store.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { bodyObject, optEnum, optInt, rejectUnknown, reqString } from './body-fields.ts';
import { checkVersion } from './etag-check.ts';
import { OUTCOME_CATEGORIES, type OutcomeCategory } from './floor-models.ts';

const FIELDS = ['Code', 'Name', 'Category'];

interface OutcomeWire {
  Name: string;
  Category: OutcomeCategory;
}

async function current(db: Queryable, code: number): Promise<OutcomeWire & { version: number }> {
  const row = await db.get<{ name: string; category: OutcomeCategory; version: number }>('SELECT name, category, version FROM extended_statuses WHERE code = ?', [code]);
  if (!row) throw notFound(`No outcome with Code ${code}`);
  return { Name: row.name, Category: row.category, version: row.version };
}

/** POST `/cati/extendedstatuses` {Code, Name, Category}: an existing Code → 409 naming it. */
export async function createExtendedStatus(store: Store, body: unknown): Promise<number> {
  const b = bodyObject(body, 'an outcome {Code, Name, Category}');
  rejectUnknown(b, FIELDS);
  const code = optInt(b, 'Code');
  if (code === undefined || code === null) throw badRequest('Code is required (the ExtendedStatus value this row names)');
  const name = reqString(b, 'Name', { max: 255 });
  const category = optEnum(b, 'Category', OUTCOME_CATEGORIES);
  if (category === undefined) throw badRequest(`Category is required: one of ${OUTCOME_CATEGORIES.join(', ')}`);
  await store.transaction(async (tx) => {
    if (await tx.get('SELECT 1 FROM extended_statuses WHERE code = ?', [code])) {
      throw conflict(`An outcome with Code ${code} already exists`, [{ code: 'ExistingId', target: 'Code', message: String(code) }]);
    }
    await tx.run('INSERT INTO extended_statuses (code, name, category) VALUES (?, ?, ?)', [code, name, category]);
    await recordAudit(tx, { action: 'created', entity: 'extendedstatuses', entityId: code, changes: { Code: code, Name: name, Category: category } });
  });
  return code;
}

/** PUT/PATCH `/cati/extendedstatuses(code)`: changes Name and Category where present. */
export async function updateExtendedStatus(store: Store, code: number, body: unknown, ifMatch?: string): Promise<void> {
  const b = bodyObject(body, 'an outcome {Name, Category}');
  rejectUnknown(b, FIELDS);
  if (b.Code !== undefined && b.Code !== code) throw badRequest(`Code in the body does not match the key ${code}`);
  const name = b.Name === undefined ? undefined : reqString(b, 'Name', { max: 255 });
  const category = optEnum(b, 'Category', OUTCOME_CATEGORIES);
  await store.transaction(async (tx) => {
    const { version, ...before } = await current(tx, code);
    checkVersion(version, ifMatch);
    const after: OutcomeWire = { Name: name ?? before.Name, Category: category ?? before.Category };
    await tx.run('UPDATE extended_statuses SET name = ?, category = ?, version = version + 1 WHERE code = ?', [after.Name, after.Category, code]);
    await recordAudit(tx, { action: 'updated', entity: 'extendedstatuses', entityId: code, changes: diffChanges({ ...before }, { ...after }) });
  });
}

/** DELETE `/cati/extendedstatuses(code)`: the code then counts as Other. */
export async function deleteExtendedStatus(store: Store, code: number, ifMatch?: string): Promise<void> {
  await store.transaction(async (tx) => {
    const { version, ...before } = await current(tx, code);
    checkVersion(version, ifMatch);
    await tx.run('DELETE FROM extended_statuses WHERE code = ?', [code]);
    await recordAudit(tx, { action: 'deleted', entity: 'extendedstatuses', entityId: code, changes: { Code: code, ...before } });
  });
}
