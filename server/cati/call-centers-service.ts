import type { Db } from '../db/open.ts';
import { conflict } from '../errors.ts';
import { bodyObject, rejectUnknown, reqString } from './body-fields.ts';

/** Creates a call centre (`POST /cati/callcenters` {Name}); duplicate name → 409 with the existing id. */
export function createCallCenter(db: Db, body: unknown): number {
  const b = bodyObject(body, 'a call centre {Name}');
  rejectUnknown(b, ['CallCenterId', 'Name']);
  const name = reqString(b, 'Name', { max: 255 });
  return db.transaction(() => {
    const existing = db.prepare('SELECT id FROM call_centers WHERE name = ?').pluck().get(name) as number | undefined;
    if (existing !== undefined) {
      throw conflict(`A call centre named '${name}' already exists`, [{ code: 'ExistingId', target: 'Id', message: String(existing) }]);
    }
    return Number(db.prepare('INSERT INTO call_centers (name) VALUES (?)').run(name).lastInsertRowid);
  }).immediate();
}
