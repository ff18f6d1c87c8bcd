/**
 * Break types (docs/cati-api.md#floor): rows appear when ingest first names a type (a trigger of migration 007);
 * supervisors change Name, MaxMinutes and IsPaid. Every change is audited in its transaction.
 */
import { diffChanges, recordAudit } from '../audit/audit-log.ts';
import type { Store } from '../db/store.ts';
import { badRequest, notFound } from '../errors.ts';
import { bodyObject, optBool, optInt, rejectUnknown, reqString } from './body-fields.ts';
import { checkVersion } from './etag-check.ts';

interface BreakTypeWire {
  Name: string;
  MaxMinutes: number | null;
  IsPaid: boolean;
}

/** PUT/PATCH `/cati/breaktypes(id)`: changes the fields present in the body; MaxMinutes null or a whole number ≥ 0. */
export async function updateBreakType(store: Store, id: number, body: unknown, ifMatch?: string): Promise<void> {
  const b = bodyObject(body, 'a break type {Name, MaxMinutes, IsPaid}');
  rejectUnknown(b, ['BreakTypeId', 'Name', 'MaxMinutes', 'IsPaid']);
  if (b.BreakTypeId !== undefined && b.BreakTypeId !== id) throw badRequest(`BreakTypeId in the body does not match the key ${id}`);
  const name = b.Name === undefined ? undefined : reqString(b, 'Name', { max: 255 });
  const maxMinutes = optInt(b, 'MaxMinutes', { min: 0, nullable: true });
  const isPaid = optBool(b, 'IsPaid');
  await store.transaction(async (tx) => {
    const row = await tx.get<{ name: string; max_minutes: number | null; is_paid: number; version: number }>(
      'SELECT name, max_minutes, is_paid, version FROM break_types WHERE id = ?',
      [id],
    );
    if (!row) throw notFound(`Break type ${id} does not exist (a type appears when a break record first names it)`);
    checkVersion(row.version, ifMatch);
    const before: BreakTypeWire = { Name: row.name, MaxMinutes: row.max_minutes, IsPaid: row.is_paid === 1 };
    const after: BreakTypeWire = {
      Name: name ?? before.Name,
      MaxMinutes: maxMinutes === undefined ? before.MaxMinutes : maxMinutes,
      IsPaid: isPaid ?? before.IsPaid,
    };
    await tx.run('UPDATE break_types SET name = ?, max_minutes = ?, is_paid = ?, version = version + 1 WHERE id = ?', [
      after.Name, after.MaxMinutes, after.IsPaid ? 1 : 0, id,
    ]);
    await recordAudit(tx, { action: 'updated', entity: 'breaktypes', entityId: id, changes: diffChanges({ ...before }, { ...after }) });
  });
}
