/**
 * Break types (CONTRACT §9): rows appear when ingest first names a type (a trigger of migration 007);
 * supervisors change Name, MaxMinutes and IsPaid. Every change is audited in its transaction.
 */
import { diffChanges, recordAuditSync } from '../audit/audit-log.ts';
import type { Db } from '../db/open.ts';
import { badRequest, notFound } from '../errors.ts';
import { bodyObject, optBool, optInt, rejectUnknown, reqString } from './body-fields.ts';
import { checkVersion } from './etag-check.ts';

interface BreakTypeWire {
  Name: string;
  MaxMinutes: number | null;
  IsPaid: boolean;
}

/** PUT/PATCH `/cati/breaktypes(id)`: changes the fields present in the body; MaxMinutes null or a whole number ≥ 0. */
export function updateBreakType(db: Db, id: number, body: unknown, ifMatch?: string): void {
  const b = bodyObject(body, 'a break type {Name, MaxMinutes, IsPaid}');
  rejectUnknown(b, ['BreakTypeId', 'Name', 'MaxMinutes', 'IsPaid']);
  if (b.BreakTypeId !== undefined && b.BreakTypeId !== id) throw badRequest(`BreakTypeId in the body does not match the key ${id}`);
  const name = b.Name === undefined ? undefined : reqString(b, 'Name', { max: 255 });
  const maxMinutes = optInt(b, 'MaxMinutes', { min: 0, nullable: true });
  const isPaid = optBool(b, 'IsPaid');
  db.transaction(() => {
    const row = db.prepare('SELECT name, max_minutes, is_paid, version FROM break_types WHERE id = ?').get(id) as
      | { name: string; max_minutes: number | null; is_paid: number; version: number }
      | undefined;
    if (!row) throw notFound(`Break type ${id} does not exist (a type appears when a break record first names it)`);
    checkVersion(row.version, ifMatch);
    const before: BreakTypeWire = { Name: row.name, MaxMinutes: row.max_minutes, IsPaid: row.is_paid === 1 };
    const after: BreakTypeWire = {
      Name: name ?? before.Name,
      MaxMinutes: maxMinutes === undefined ? before.MaxMinutes : maxMinutes,
      IsPaid: isPaid ?? before.IsPaid,
    };
    db.prepare('UPDATE break_types SET name = ?, max_minutes = ?, is_paid = ?, version = version + 1 WHERE id = ?').run(
      after.Name, after.MaxMinutes, after.IsPaid ? 1 : 0, id,
    );
    recordAuditSync(db, { action: 'updated', entity: 'breaktypes', entityId: id, changes: diffChanges({ ...before }, { ...after }) });
  }).immediate();
}
