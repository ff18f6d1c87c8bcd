/**
 * Re-normalisation of the stored blacklist when the phone region changes (CONTRACT §10). The last region
 * is kept in the settings table (`phoneRegion`); when the server starts with another one, every stored
 * number is read again under the new region (phone-region.ts `renormaliseStored`) in one transaction.
 * Numbers that become equal (same digits, same Type) are merged: the lowest Id keeps its Comment, the
 * others are deleted and each deletion is audited; one audit row records the region change and counts.
 */
import type { CountryCode } from 'libphonenumber-js';
import { recordAudit } from '../audit/audit-log.ts';
import type { Queryable, Store } from '../db/store.ts';
import { renormaliseStored, trunkPrefix, type NumberType } from './phone-region.ts';

/** Settings key holding the region the stored numbers are normalised for (JSON string or null). */
export const PHONE_REGION_SETTING = 'phoneRegion';

export interface RenormaliseOutcome {
  /** False when the region was already the stored one (nothing done). */
  changed: boolean;
  previous: string | null;
  /** Numbers whose digits changed (kept items). */
  updated: number;
  /** Items deleted because they became duplicates of a lower Id. */
  merged: number;
}

interface StoredItem {
  id: number;
  telephone_number: string;
  type: NumberType;
  comment: string | null;
  created: number;
}

async function storedRegion(db: Queryable): Promise<string | null | undefined> {
  const raw = await db.value<string>('SELECT value FROM settings WHERE key = ?', [PHONE_REGION_SETTING]);
  return raw === undefined ? undefined : (JSON.parse(raw) as string | null);
}

/**
 * Brings the stored numbers to `region` (null = digits only: nothing to rewrite) and remembers it.
 * Runs once per start; a no-op when the region did not change.
 */
export async function applyPhoneRegion(store: Store, region: CountryCode | null): Promise<RenormaliseOutcome> {
  const unchanged = (previous: string | null): RenormaliseOutcome => ({ changed: false, previous, updated: 0, merged: 0 });
  if (((await storedRegion(store)) ?? null) === region) return unchanged(region);
  return store.transaction(async (tx): Promise<RenormaliseOutcome> => {
    // Read again inside: another server on the same database may have just done it.
    const previous = (await storedRegion(tx)) ?? null;
    if (previous === region) return unchanged(previous);
    let updated = 0;
    let merged = 0;
    if (region) {
      const trunk = trunkPrefix(region);
      const items = await tx.all<StoredItem>('SELECT id, telephone_number, type, comment, created FROM blacklist ORDER BY id');
      const keepers = new Map<string, StoredItem>(); // `${type}:${digits}` → lowest Id
      const moves: { id: number; digits: string }[] = [];
      for (const item of items) {
        const digits = renormaliseStored(item.telephone_number, item.type, region, trunk);
        const slot = `${item.type}:${digits}`;
        const keeper = keepers.get(slot);
        if (keeper) {
          await tx.run('DELETE FROM blacklist WHERE id = ?', [item.id]);
          merged++;
          await recordAudit(tx, {
            action: 'deleted',
            entity: 'blacklist',
            entityId: item.id,
            changes: { TelephoneNumber: item.telephone_number, Type: item.type, Comment: item.comment, MergedInto: keeper.id, PhoneRegion: region },
          });
          continue;
        }
        keepers.set(slot, item);
        if (digits !== item.telephone_number) moves.push({ id: item.id, digits });
      }
      // Two steps, so a number may move onto digits another item is just leaving (UNIQUE number + type).
      for (const m of moves) await tx.run("UPDATE blacklist SET telephone_number = '#' || CAST(id AS TEXT) WHERE id = ?", [m.id]);
      for (const m of moves) await tx.run('UPDATE blacklist SET telephone_number = ?, version = version + 1 WHERE id = ?', [m.digits, m.id]);
      updated = moves.length;
    }
    await tx.run('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [
      PHONE_REGION_SETTING,
      JSON.stringify(region),
    ]);
    await recordAudit(tx, { action: 'updated', entity: 'settings', entityId: PHONE_REGION_SETTING, changes: { phoneRegion: [previous, region] } });
    if (region && (updated > 0 || merged > 0)) {
      await recordAudit(tx, { action: 'renormalised', entity: 'blacklist', entityId: null, changes: { PhoneRegion: region, Updated: updated, Merged: merged } });
    }
    return { changed: true, previous, updated, merged };
  });
}
