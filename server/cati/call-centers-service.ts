import { diffChanges, recordAudit } from '../audit/audit-log.ts';
import type { Queryable, Store } from '../db/store.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { bodyObject, optString, rejectUnknown, reqString } from './body-fields.ts';
import { checkVersion } from './etag-check.ts';
import { canonicalTimeZone, serverTimeZone } from '../../common/time-zones.ts';

const FIELDS = ['CallCenterId', 'Name', 'TimeZone'];

/** `TimeZone` of a body: an IANA name Intl knows (canonical spelling), undefined when absent; else 400. */
function readTimeZone(b: Record<string, unknown>): string | undefined {
  const raw = optString(b, 'TimeZone', { max: 64 });
  if (raw === undefined || raw === null) return undefined;
  const zone = canonicalTimeZone(raw);
  if (!zone) throw badRequest(`TimeZone '${raw}' is not an IANA time zone name such as Europe/Amsterdam`);
  return zone;
}

async function assertNameFree(db: Queryable, name: string, self: number | null): Promise<void> {
  const existing = await db.value<number>('SELECT id FROM call_centers WHERE name = ?', [name]);
  if (existing !== undefined && existing !== self) {
    throw conflict(`A call centre named '${name}' already exists`, [{ code: 'ExistingId', target: 'Id', message: String(existing) }]);
  }
}

/** Creates a call centre (`POST /cati/callcenters` {Name, TimeZone}); duplicate name → 409 with the existing id. */
export async function createCallCenter(store: Store, body: unknown): Promise<number> {
  const b = bodyObject(body, 'a call centre {Name, TimeZone}');
  rejectUnknown(b, FIELDS);
  const name = reqString(b, 'Name', { max: 255 });
  const zone = readTimeZone(b) ?? serverTimeZone();
  return store.transaction(async (tx) => {
    await assertNameFree(tx, name, null);
    const id = (await tx.value<number>('INSERT INTO call_centers (name, time_zone) VALUES (?, ?) RETURNING id', [name, zone]))!;
    await recordAudit(tx, { action: 'created', entity: 'callcenters', entityId: id, changes: { Name: name, TimeZone: zone } });
    return id;
  });
}

/** PUT/PATCH `/cati/callcenters(id)`: changes the Name and TimeZone present in the body (If-Match honoured). */
export async function updateCallCenter(store: Store, id: number, body: unknown, ifMatch?: string): Promise<void> {
  const b = bodyObject(body, 'a call centre {Name, TimeZone}');
  rejectUnknown(b, FIELDS);
  if (b.CallCenterId !== undefined && b.CallCenterId !== id) throw badRequest(`CallCenterId in the body does not match the key ${id}`);
  const name = b.Name === undefined ? undefined : reqString(b, 'Name', { max: 255 });
  const zone = readTimeZone(b);
  await store.transaction(async (tx) => {
    const row = await tx.get<{ name: string; time_zone: string | null; version: number }>('SELECT name, time_zone, version FROM call_centers WHERE id = ?', [id]);
    if (!row) throw notFound(`Call centre ${id} does not exist`);
    checkVersion(row.version, ifMatch);
    if (name !== undefined) await assertNameFree(tx, name, id);
    const after = { Name: name ?? row.name, TimeZone: zone ?? row.time_zone };
    await tx.run('UPDATE call_centers SET name = ?, time_zone = ?, version = version + 1 WHERE id = ?', [after.Name, after.TimeZone, id]);
    await recordAudit(tx, { action: 'updated', entity: 'callcenters', entityId: id, changes: diffChanges({ Name: row.name, TimeZone: row.time_zone }, after) });
  });
}

/**
 * Gives every call centre without a zone the server's zone (run at start: rows from before migration 007).
 * Asks first, so a start with nothing to fill neither writes nor pays for the server's zone (Intl's first use
 * loads its time-zone data: 20–30 ms of a cold start).
 */
export async function fillCallCenterTimeZones(db: Queryable): Promise<void> {
  if (!(await db.get('SELECT 1 AS one FROM call_centers WHERE time_zone IS NULL LIMIT 1'))) return;
  await db.run('UPDATE call_centers SET time_zone = ? WHERE time_zone IS NULL', [serverTimeZone()]);
}
