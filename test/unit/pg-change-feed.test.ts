/**
 * The change feed (server/db/change-feed.ts, db/pg-change-feed.ts; docs/events.md): a batch published with a
 * transaction reaches every subscriber once it commits and never when it (or its savepoint) rolls back. On
 * PostgreSQL two stores on one database stand for two servers: a batch published through either reaches both, in
 * commit order, whatever its size, and a listener whose connection was cut catches up on what committed meanwhile,
 * rows of concurrent transactions committed out of id order included.
 */
import type { EventEmitter } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeFeed, FeedBatch } from '../../server/db/change-feed.ts';
import { LISTENER_NAME } from '../../server/db/pg-change-feed.ts';
import { PgStore } from '../../server/db/pg-store.ts';
import type { Store } from '../../server/db/store.ts';
import { eventCodec, outboxEvents, outboxText } from '../../server/events/outbox-text.ts';
import { eventData, type EventType } from '../../server/events/publisher.ts';
import { freshPgDatabase, openTestStore, pgAvailability } from '../helpers/postgres.ts';

type Batch = { type: EventType; data: Record<string, unknown> }[];

const pg = pgAvailability();
if (!pg.available) console.warn(`SKIPPED (PostgreSQL change feed): ${pg.reason}`);

/** A subscriber that records what it was given, and how many resets. */
const recorder = () => {
  const batches: Batch[] = [];
  const r = { batches, resets: 0, deliver: (b: FeedBatch) => void batches.push(b as Batch), reset: () => void r.resets++, codec: eventCodec };
  return r;
};
const ids = (batches: Batch[]) => batches.flat().map((e) => e.data.id);
const one = (id: number, type: EventType = 'blacklist'): Batch => [{ type, data: { action: 'created', id } }];
/** Publishes `batch` in a transaction of its own. */
const publish = (store: Store, batch: Batch) => store.transaction((tx) => tx.publish(batch));

describe('the outbox text of a batch', () => {
  it('stores runs of one type and one key order as rows of values, and reads back exactly the events written', () => {
    const calls = Array.from({ length: 3 }, (_, i) => ({ type: 'call' as const, action: 'created' as const, id: i + 1, record: { Id: i + 1, Time: '2026-11-28T08:00:00.000Z', Duration: i ? 60 : null } }));
    const events = [
      ...calls,
      { type: 'call' as const, action: 'closed' as const, id: 9, record: { Duration: 5, Id: 9 } }, // another key order
      { type: 'call' as const, action: 'closed' as const, id: 10, record: { Duration: 6, id: 11 } }, // its own id wins, as in eventData
      { type: 'call' as const, action: 'closed' as const, id: 12, record: { Duration: 7, id: 13 } },
      { type: 'session' as const, action: 'opened' as const, id: 4, record: { SessionId: 4 } },
      { type: 'session' as const, action: 'deleted' as const, id: 5 },
      { type: 'blacklist' as const, data: { action: 'created', id: 7, Number: '555', ['__proto__']: 'x' } }, // read back from an older row
    ];
    const text = outboxText(events);
    expect(JSON.parse(text)).toHaveLength(6);
    expect(JSON.parse(text)[2]).toEqual({ type: 'call', keys: ['action', 'id', 'Duration'], rows: [['closed', 11, 6], ['closed', 13, 7]] });
    expect(JSON.parse(text)[0]).toEqual({
      type: 'call',
      keys: ['action', 'id', 'Id', 'Time', 'Duration'],
      rows: [['created', 1, 1, '2026-11-28T08:00:00.000Z', null], ['created', 2, 2, '2026-11-28T08:00:00.000Z', 60], ['created', 3, 3, '2026-11-28T08:00:00.000Z', 60]],
    });
    const back = outboxEvents(text);
    expect(back.map((e) => JSON.stringify(eventData(e)))).toEqual(events.map((e) => JSON.stringify(eventData(e))));
    expect(back.map((e) => e.type)).toEqual(events.map((e) => e.type));
    expect(JSON.stringify(eventData(back[8]!))).toContain('"__proto__":"x"'); // a key, not the prototype
    expect(Object.getPrototypeOf((back[8] as { data: object }).data)).toBe(Object.prototype);
    // A row an older server wrote: {type, data} objects.
    expect(outboxEvents(JSON.stringify([{ type: 'interviewer', data: { action: 'locked', id: 3 } }]))).toEqual([{ type: 'interviewer', data: { action: 'locked', id: 3 } }]);
  });
});

describe('the change feed on SQLite', () => {
  let store: Store;
  const hub = recorder();
  beforeAll(async () => {
    store = await openTestStore('sqlite');
    await store.openChangeFeed(hub);
  });
  afterAll(() => store?.close());

  it('delivers a committed batch before the transaction resolves, and nothing of a rolled-back one or savepoint', async () => {
    await publish(store, one(1));
    expect(ids(hub.batches)).toEqual([1]);
    await expect(store.transaction(async (tx) => {
      await tx.publish(one(2));
      throw new Error('rolled back');
    })).rejects.toThrow('rolled back');
    await store.transaction(async (tx) => {
      await tx.publish(one(3));
      await store.transaction(async (inner) => inner.publish(one(4))).catch(() => undefined);
      await store.transaction(async (inner) => {
        await inner.publish(one(5));
        throw new Error('savepoint rolled back');
      }).catch(() => undefined);
    });
    expect(ids(hub.batches)).toEqual([1, 3, 4]);
    await expect(store.publish(one(6))).rejects.toThrow(/outside a transaction/);
  });
});

describe.skipIf(!pg.available)('the change feed on PostgreSQL', () => {
  let url: string;
  let a: PgStore;
  let b: PgStore;
  const hubA = recorder();
  const hubB = recorder();
  let feedA: ChangeFeed;
  let feedB: ChangeFeed;

  beforeAll(async () => {
    url = await freshPgDatabase();
    a = await PgStore.open(url);
    b = await PgStore.open(url);
    feedA = await a.openChangeFeed(hubA);
    feedB = await b.openChangeFeed(hubB);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it("delivers a committed batch to every server's subscriber, the writer's own before its transaction resolves", async () => {
    const batch = one(1);
    await publish(a, batch);
    expect(hubA.batches).toEqual([batch]);
    expect(hubA.batches[0]).toBe(batch); // handed over from memory, not read back
    await expect.poll(() => hubB.batches).toEqual(hubA.batches);
  });

  it('delivers nothing of a transaction that rolled back, nor of a savepoint that did', async () => {
    const before = { a: hubA.batches.length, b: hubB.batches.length };
    await expect(a.transaction(async (tx) => {
      await tx.publish(one(2));
      throw new Error('rolled back');
    })).rejects.toThrow('rolled back');
    await a.transaction(async (tx) => {
      await a.transaction(async (inner) => {
        await inner.publish(one(3));
        throw new Error('savepoint rolled back');
      }).catch(() => undefined);
      await tx.publish(one(4));
    });
    await expect.poll(() => ids(hubB.batches.slice(before.b))).toEqual([4]);
    expect(ids(hubA.batches.slice(before.a))).toEqual([4]);
    expect(await a.value('SELECT count(*)::int FROM event_outbox WHERE events LIKE ?', ['%["created",3]%'])).toBe(0);
  });

  it('keeps the order of batches from both servers and carries batches far above 8000 bytes', async () => {
    const before = { a: hubA.batches.length, b: hubB.batches.length };
    const big: Batch = Array.from({ length: 2000 }, (_, i) => ({ type: 'call', data: { action: 'opened', id: 1000 + i, TelephoneNumber: '+441234567890' } }));
    for (let i = 0; i < 10; i++) await publish(i % 2 ? b : a, one(100 + i, 'session'));
    await publish(b, big);
    await expect.poll(() => hubA.batches.length).toBe(before.a + 11);
    await expect.poll(() => hubB.batches.length).toBe(before.b + 11);
    const expected = [...Array.from({ length: 10 }, (_, i) => 100 + i), ...big.map((e) => e.data.id)];
    expect(ids(hubA.batches.slice(before.a))).toEqual(expected);
    expect(ids(hubB.batches.slice(before.b))).toEqual(expected);
  });

  it('stores a large batch deflated and delivers it to the other server as written; a row it cannot read resets the streams', async () => {
    const before = hubB.batches.length;
    const big: Batch = Array.from({ length: 10_000 }, (_, i) => ({ type: 'call', data: { action: 'created', id: 50_000 + i, Time: new Date(1.79e12 + i * 997).toISOString(), Duration: i % 600 } }));
    feedA.prepare(big); // made ahead, as an ingest does while its rows are written
    await publish(a, big);
    const row = (await a.get<{ events: string; packed: Buffer | null }>('SELECT events, packed FROM event_outbox ORDER BY id DESC LIMIT 1'))!;
    expect(row.events).toBe('');
    expect(row.packed!.length).toBeLessThan(JSON.stringify(big).length / 4);
    await expect.poll(() => hubB.batches.length).toBe(before + 1);
    expect(hubB.batches[before]).toEqual(big);
    const resets = hubB.resets;
    await a.value("WITH e AS (INSERT INTO event_outbox (time, events, packed) VALUES ((extract(epoch from clock_timestamp()) * 1000)::bigint, '', '\\x0102') RETURNING id) SELECT pg_notify('cati_events', id::text) FROM e");
    await publish(a, one(903));
    await expect.poll(() => ids(hubB.batches.slice(before + 1))).toEqual([903]); // the broken row between delivers nothing
    expect(hubB.resets).toBe(resets + 1);
  });

  it('delivers a notification parsed right after one whose batch needed no read, without waiting for the next', async () => {
    // pg parses a socket chunk's notifications one after another in one turn of the event loop. A batch this
    // server published itself (or one delivered already) passes through the feed's queue without a single await;
    // the next notification of the same chunk must not find the queue still marked busy and wait there.
    const before = hubA.batches.length;
    await publish(a, one(901));
    const delivered = await a.value<number>('SELECT max(id) FROM event_outbox');
    const other = await b.transaction(async (tx) => {
      await tx.publish(one(902));
      return tx.value<number>('SELECT max(id) FROM event_outbox');
    });
    const listener = (feedA as unknown as { client: EventEmitter }).client;
    listener.emit('notification', { channel: 'cati_events', payload: String(delivered) });
    listener.emit('notification', { channel: 'cati_events', payload: String(other) });
    await expect.poll(() => ids(hubA.batches.slice(before)), { timeout: 5000 }).toEqual([901, 902]);
  });

  it('catches up after a reconnection on every row committed meanwhile, ids committed out of order included, once', async () => {
    const before = { a: hubA.batches.length, b: hubB.batches.length };
    const resets = hubA.resets + hubB.resets;
    // A transaction takes the lower id and stays open; a later one takes the next id and commits first.
    let commitEarly!: () => void;
    const held = new Promise<void>((resolve) => (commitEarly = resolve));
    let wrote!: () => void;
    const written = new Promise<void>((resolve) => (wrote = resolve));
    const early = b.transaction(async (tx) => {
      await tx.publish(one(701));
      wrote();
      await held;
    });
    await written;
    await publish(b, one(702));
    await expect.poll(() => ids(hubA.batches.slice(before.a))).toEqual([702]);
    // Both listeners cut; the lower id commits while nobody listens, and so does one more.
    expect(await a.value('SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND application_name = ?', [LISTENER_NAME])).toBe(2);
    await expect.poll(() => feedA.listening || feedB.listening).toBe(false);
    commitEarly();
    await early;
    await publish(a, one(703));
    await expect.poll(() => [feedA.connections, feedB.connections], { timeout: 20_000 }).toEqual([2, 2]);
    for (const hub of [hubA, hubB]) {
      const start = hub === hubA ? before.a : before.b;
      await expect.poll(() => ids(hub.batches.slice(start)).sort(), { timeout: 20_000 }).toEqual([701, 702, 703]);
    }
    await publish(b, one(704));
    for (const hub of [hubA, hubB]) await expect.poll(() => ids(hub.batches).filter((id) => Number(id) >= 701 && Number(id) <= 704).sort()).toEqual([701, 702, 703, 704]);
    expect(hubA.resets + hubB.resets).toBe(resets); // away for seconds: nothing to reset
  });
});
