/**
 * Re-normalisation of the stored blacklist when the phone region changes (docs/cati-api.md#phone-region). The region
 * is the company's setting in the settings table (`phoneRegion`); when it changes (PATCH /admin/settings,
 * or a start with another `--phone-region`), every stored number is read again under the new region
 * (phone-region.ts `renormaliseStored`) in one transaction.
 * Numbers that become equal (same digits, same Type) are merged: the lowest Id keeps its Comment, the
 * others are deleted and each deletion is audited; one audit row records the region change and counts.
 */
import type { CountryCode } from 'libphonenumber-js';
import { recordAudit } from '../audit/audit-log.ts';
import type { Queryable, Store } from '../db/store.ts';
import { renormaliseStored, trunkPrefix, type NumberType } from '../phone/phone-region.ts';

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

export interface StoredItem {
  id: number;
  telephone_number: string;
  type: NumberType;
  comment: string | null;
  created: number;
}

/** The stored region setting: undefined when none was ever stored, else the region or null. */
export async function storedRegion(db: Queryable): Promise<string | null | undefined> {
  const raw = await db.value<string>('SELECT value FROM settings WHERE key = ?', [PHONE_REGION_SETTING]);
  return raw === undefined ? undefined : (JSON.parse(raw) as string | null);
}

/** What re-normalising the stored numbers under a region does: the numbers that move, and the items merged into a lower Id. */
export interface RenormalisePlan {
  moves: { id: number; from: string; digits: string; type: NumberType }[];
  merges: { item: StoredItem; keeper: number }[];
  total: number;
}

/** Plans the re-normalisation of `items` (in Id order) under `region` (docs/cati-api.md#phone-region), changing nothing. */
export function planRenormalise(items: readonly StoredItem[], region: CountryCode): RenormalisePlan {
  const trunk = trunkPrefix(region);
  const keepers = new Map<string, StoredItem>(); // `${type}:${digits}` → lowest Id
  const plan: RenormalisePlan = { moves: [], merges: [], total: items.length };
  for (const item of items) {
    const digits = renormaliseStored(item.telephone_number, item.type, region, trunk);
    const slot = `${item.type}:${digits}`;
    const keeper = keepers.get(slot);
    if (keeper) {
      plan.merges.push({ item, keeper: keeper.id });
      continue;
    }
    keepers.set(slot, item);
    if (digits !== item.telephone_number) plan.moves.push({ id: item.id, from: item.telephone_number, digits, type: item.type });
  }
  return plan;
}

const ITEMS = 'SELECT id, telephone_number, type, comment, created FROM blacklist ORDER BY id';

/** A dry run of a region change (the Settings screen's preview): how many numbers would change and merge, and a few of them. */
export async function previewPhoneRegion(db: Queryable, region: CountryCode | null): Promise<{ Entries: number; Changes: number; Merges: number; Sample: { Id: number; Before: string; After: string; MergedInto: number | null }[] }> {
  const items = await db.all<StoredItem>(ITEMS);
  if (!region) return { Entries: items.length, Changes: 0, Merges: 0, Sample: [] };
  const plan = planRenormalise(items, region);
  const moved = new Map(plan.moves.map((m) => [m.id, m.digits]));
  const sample = [
    ...plan.merges.slice(0, 5).map((m) => ({ Id: m.item.id, Before: m.item.telephone_number, After: renormaliseStored(m.item.telephone_number, m.item.type, region), MergedInto: m.keeper })),
    ...plan.moves.slice(0, 10).map((m) => ({ Id: m.id, Before: m.from, After: moved.get(m.id)!, MergedInto: null })),
  ];
  return { Entries: items.length, Changes: plan.moves.length, Merges: plan.merges.length, Sample: sample };
}

/**
 * Brings the stored numbers to `region` (null = digits only: nothing to rewrite) and stores it as the
 * company's setting, in one transaction, audited (entity `settings`; each merged item as a deletion).
 * A no-op when the region did not change. Called at start for `--phone-region` and by PATCH /admin/settings.
 */
export async function applyPhoneRegion(store: Store, region: CountryCode | null): Promise<RenormaliseOutcome> {
  const unchanged = (previous: string | null): RenormaliseOutcome => ({ changed: false, previous, updated: 0, merged: 0 });
  if ((await storedRegion(store)) === region) return unchanged(region);
  return store.transaction(async (tx): Promise<RenormaliseOutcome> => {
    // Read again inside: another server on the same database may have just done it.
    const stored = await storedRegion(tx);
    const previous = stored ?? null;
    if (stored === region) return unchanged(previous);
    let updated = 0;
    let merged = 0;
    if (region) {
      const plan = planRenormalise(await tx.all<StoredItem>(ITEMS), region);
      for (const { item, keeper } of plan.merges) {
        await tx.run('DELETE FROM blacklist WHERE id = ?', [item.id]);
        merged++;
        await recordAudit(tx, {
          action: 'deleted',
          entity: 'blacklist',
          entityId: item.id,
          changes: { TelephoneNumber: item.telephone_number, Type: item.type, Comment: item.comment, MergedInto: keeper, PhoneRegion: region },
        });
      }
      // Two steps, so a number may move onto digits another item is just leaving (UNIQUE number + type).
      for (const m of plan.moves) await tx.run("UPDATE blacklist SET telephone_number = '#' || CAST(id AS TEXT) WHERE id = ?", [m.id]);
      for (const m of plan.moves) await tx.run('UPDATE blacklist SET telephone_number = ?, version = version + 1 WHERE id = ?', [m.digits, m.id]);
      updated = plan.moves.length;
    }
    await tx.run('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [
      PHONE_REGION_SETTING,
      JSON.stringify(region),
    ]);
    await recordAudit(tx, { action: 'updated', entity: 'settings', entityId: PHONE_REGION_SETTING, changes: { PhoneRegion: [previous, region] } });
    if (region && (updated > 0 || merged > 0)) {
      await recordAudit(tx, { action: 'renormalised', entity: 'blacklist', entityId: null, changes: { PhoneRegion: region, Updated: updated, Merged: merged } });
    }
    return { changed: true, previous, updated, merged };
  });
}
