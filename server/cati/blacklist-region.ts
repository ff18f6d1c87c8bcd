/**
 * Re-normalisation of the stored blacklist when the phone region changes (CONTRACT §10). The last region
 * is kept in the settings table (`phoneRegion`); when the server starts with another one, every stored
 * number is read again under the new region (phone-region.ts `renormaliseStored`) in one transaction.
 * Numbers that become equal (same digits, same Type) are merged: the lowest Id keeps its Comment, the
 * others are deleted and each deletion is audited; one audit row records the region change and counts.
 */
import type { CountryCode } from 'libphonenumber-js';
import { recordAuditSync } from '../audit/audit-log.ts';
import type { Db } from '../db/open.ts';
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

function storedRegion(db: Db): string | null | undefined {
  const raw = db.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(PHONE_REGION_SETTING) as string | undefined;
  return raw === undefined ? undefined : (JSON.parse(raw) as string | null);
}

/**
 * Brings the stored numbers to `region` (null = digits only: nothing to rewrite) and remembers it.
 * Runs once per start; a no-op when the region did not change.
 */
export function applyPhoneRegion(db: Db, region: CountryCode | null): RenormaliseOutcome {
  const previous = storedRegion(db) ?? null;
  if (previous === region) return { changed: false, previous, updated: 0, merged: 0 };
  return db.transaction((): RenormaliseOutcome => {
    let updated = 0;
    let merged = 0;
    if (region) {
      const trunk = trunkPrefix(region);
      const items = db.prepare('SELECT id, telephone_number, type, comment, created FROM blacklist ORDER BY id').all() as StoredItem[];
      const keepers = new Map<string, StoredItem>(); // `${type}:${digits}` → lowest Id
      const moves: { id: number; digits: string }[] = [];
      const remove = db.prepare('DELETE FROM blacklist WHERE id = ?');
      for (const item of items) {
        const digits = renormaliseStored(item.telephone_number, item.type, region, trunk);
        const slot = `${item.type}:${digits}`;
        const keeper = keepers.get(slot);
        if (keeper) {
          remove.run(item.id);
          merged++;
          recordAuditSync(db, {
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
      const park = db.prepare("UPDATE blacklist SET telephone_number = '#' || id WHERE id = ?");
      const place = db.prepare('UPDATE blacklist SET telephone_number = ?, version = version + 1 WHERE id = ?');
      for (const m of moves) park.run(m.id);
      for (const m of moves) place.run(m.digits, m.id);
      updated = moves.length;
    }
    db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(
      PHONE_REGION_SETTING,
      JSON.stringify(region),
    );
    recordAuditSync(db, { action: 'updated', entity: 'settings', entityId: PHONE_REGION_SETTING, changes: { phoneRegion: [previous, region] } });
    if (region && (updated > 0 || merged > 0)) {
      recordAuditSync(db, { action: 'renormalised', entity: 'blacklist', entityId: null, changes: { PhoneRegion: region, Updated: updated, Merged: merged } });
    }
    return { changed: true, previous, updated, merged };
  }).immediate();
}
