/**
 * docs/limits.md#event-loop for Controller.Import under a phone region: normalising 10,000 numbers with libphonenumber-js
 * takes longer than the 50 ms budget, so the import gives other work a turn between slices of items. Observed
 * without timing: a callback queued before the import runs before the import has read all its items.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { importItems } from '../../server/cati/blacklist-service.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';

let dir: string;
let store: SqliteStore;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cati-bl-turns-'));
  store = SqliteStore.open(join(dir, 'cati.sqlite'));
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** 10,000 national numbers, and how many had been read when `mark` ran. */
function watchedItems(): { items: string[]; readWhenMarked: () => number | undefined; mark: () => void } {
  const numbers = Array.from({ length: 10_000 }, (_, i) => `06${String(10_000_000 + i)}`);
  let read = 0;
  let marked: number | undefined;
  const items = new Proxy(numbers, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) read = Math.max(read, Number(key) + 1);
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { items, readWhenMarked: () => marked, mark: () => void (marked = read) };
}

it('a 10,000-number import under a phone region lets other work run before it has read every item', async () => {
  const { items, readWhenMarked, mark } = watchedItems();
  setImmediate(mark);
  const result = await importItems(store, items, 'NL');
  expect(result).toMatchObject({ Added: 10_000, Invalid: 0 });
  expect(readWhenMarked()).toBeGreaterThan(0);
  expect(readWhenMarked()).toBeLessThan(10_000);
  expect(await store.value("SELECT count(*) FROM blacklist WHERE telephone_number LIKE '316%'")).toBe(10_000);
});
