import { diffChanges, recordAuditSync } from '../audit/audit-log.ts';
import type { Db } from '../db/open.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { bodyObject, optString, rejectUnknown, reqString } from './body-fields.ts';
import { checkVersion } from './etag-check.ts';
import { canonicalTimeZone, serverTimeZone } from './time-zones.ts';

const FIELDS = ['CallCenterId', 'Name', 'TimeZone'];

/** `TimeZone` of a body: an IANA name Intl knows (canonical spelling), undefined when absent; else 400. */
function readTimeZone(b: Record<string, unknown>): string | undefined {
  const raw = optString(b, 'TimeZone', { max: 64 });
  if (raw === undefined || raw === null) return undefined;
  const zone = canonicalTimeZone(raw);
  if (!zone) throw badRequest(`TimeZone '${raw}' is not an IANA time zone name such as Europe/Amsterdam`);
  return zone;
}

function assertNameFree(db: Db, name: string, self: number | null): void {
  const existing = db.prepare('SELECT id FROM call_centers WHERE name = ?').pluck().get(name) as number | undefined;
  if (existing !== undefined && existing !== self) {
    throw conflict(`A call centre named '${name}' already exists`, [{ code: 'ExistingId', target: 'Id', message: String(existing) }]);
  }
}

/** Creates a call centre (`POST /cati/callcenters` {Name, TimeZone}); duplicate name → 409 with the existing id. */
export function createCallCenter(db: Db, body: unknown): number {
  const b = bodyObject(body, 'a call centre {Name, TimeZone}');
  rejectUnknown(b, FIELDS);
  const name = reqString(b, 'Name', { max: 255 });
  const zone = readTimeZone(b) ?? serverTimeZone();
  return db.transaction(() => {
    assertNameFree(db, name, null);
    const id = Number(db.prepare('INSERT INTO call_centers (name, time_zone) VALUES (?, ?)').run(name, zone).lastInsertRowid);
    recordAuditSync(db, { action: 'created', entity: 'callcenters', entityId: id, changes: { Name: name, TimeZone: zone } });
    return id;
  }).immediate();
}

/** PUT/PATCH `/cati/callcenters(id)`: changes the Name and TimeZone present in the body (If-Match honoured). */
export function updateCallCenter(db: Db, id: number, body: unknown, ifMatch?: string): void {
  const b = bodyObject(body, 'a call centre {Name, TimeZone}');
  rejectUnknown(b, FIELDS);
  if (b.CallCenterId !== undefined && b.CallCenterId !== id) throw badRequest(`CallCenterId in the body does not match the key ${id}`);
  const name = b.Name === undefined ? undefined : reqString(b, 'Name', { max: 255 });
  const zone = readTimeZone(b);
  db.transaction(() => {
    const row = db.prepare('SELECT name, time_zone, version FROM call_centers WHERE id = ?').get(id) as
      | { name: string; time_zone: string | null; version: number }
      | undefined;
    if (!row) throw notFound(`Call centre ${id} does not exist`);
    checkVersion(row.version, ifMatch);
    if (name !== undefined) assertNameFree(db, name, id);
    const after = { Name: name ?? row.name, TimeZone: zone ?? row.time_zone };
    db.prepare('UPDATE call_centers SET name = ?, time_zone = ?, version = version + 1 WHERE id = ?').run(after.Name, after.TimeZone, id);
    recordAuditSync(db, { action: 'updated', entity: 'callcenters', entityId: id, changes: diffChanges({ Name: row.name, TimeZone: row.time_zone }, after) });
  }).immediate();
}

/** Gives every call centre without a zone the server's zone (run at start: rows from before migration 007). */
export function fillCallCenterTimeZones(db: Db): void {
  db.prepare('UPDATE call_centers SET time_zone = ? WHERE time_zone IS NULL').run(serverTimeZone());
}
