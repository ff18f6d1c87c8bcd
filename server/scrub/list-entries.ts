/**
 * The list a scrub matches against, on its way from the database (main thread) to the parse worker:
 * packed chunks (scrub-protocol.ts EntriesChunk) rather than arrays of rows, so that sending 1,000,000
 * entries costs the main thread a few hundred small copies, not a million structured clones.
 */
import { setImmediate as yieldLoop } from 'node:timers/promises';
import type { Store } from '../db/store.ts';
import type { EntriesChunk } from './scrub-protocol.ts';

/** Rows read per chunk (each chunk is followed by a turn of the event loop). */
export const LOAD_CHUNK = 2_000;

/** What a scrub needs of its list: the columns a removed row gains, and the entries sent to the worker. */
export interface ListSource {
  extraColumns: readonly string[];
  /** Sends every entry in chunks, yielding to the event loop between them. */
  send(to: (chunk: EntriesChunk) => void): Promise<void>;
}

/** Packs rows `[id, value, kind]` of one query; `code` maps the kind to the chunk's 0/1. */
export function packEntries(rows: readonly unknown[][], code: (row: readonly unknown[]) => number, listId: number): EntriesChunk {
  const ids = new Float64Array(rows.length);
  const codes = new Uint8Array(rows.length);
  const values: string[] = new Array<string>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    ids[i] = Number(row[0]);
    values[i] = String(row[1]);
    codes[i] = code(row);
  }
  return { type: 'entries', ids, values: JSON.stringify(values), codes, listId };
}

/** Reads a query in chunks (the store's cursor) and sends each packed, with a turn of the event loop after each. */
export async function sendQuery(store: Store, sql: string, params: unknown[], code: (row: readonly unknown[]) => number, listId: number, to: (chunk: EntriesChunk) => void): Promise<void> {
  for await (const rows of store.chunks(sql, params as never, LOAD_CHUNK)) {
    to(packEntries(rows, code, listId));
    await yieldLoop();
  }
}

/**
 * Reads a whole table in pages of LOAD_CHUNK rows by its primary key (`sql` selects `id, value, kind` and
 * ends in `WHERE id > ? ORDER BY id LIMIT ?`) and sends each packed, with a turn of the event loop after
 * each: on SQLite half the CPU of one long iteration of a cursor.
 */
export async function sendPages(store: Store, sql: string, code: (row: readonly unknown[]) => number, to: (chunk: EntriesChunk) => void): Promise<void> {
  let last = 0;
  for (;;) {
    const rows = await store.rows(sql, [last, LOAD_CHUNK]);
    if (rows.length > 0) to(packEntries(rows, code, 0));
    if (rows.length < LOAD_CHUNK) return;
    last = Number(rows[rows.length - 1]![0]);
    await yieldLoop();
  }
}

/** Calls `fn` with each entry of a chunk (in the worker). */
export function forEachEntry(chunk: EntriesChunk, fn: (id: number, value: string, code: number, listId: number) => void): void {
  const values = JSON.parse(chunk.values) as string[];
  for (let i = 0; i < values.length; i++) fn(chunk.ids[i]!, values[i]!, chunk.codes[i]!, chunk.listId);
}
