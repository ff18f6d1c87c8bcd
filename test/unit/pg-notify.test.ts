/**
 * /events across server processes on PostgreSQL (server/events/pg-notify.ts): two stores on one database stand
 * for two servers; a batch published through either reaches both hubs, in order, whatever its size, and a
 * listener whose connection was cut catches up on what it missed.
 */
import type { EventEmitter } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgStore } from '../../server/db/pg-store.ts';
import { LISTENER_NAME, outboxEvents, outboxText, pgEventSink, type PgEventBridge } from '../../server/events/pg-notify.ts';
import { eventData, type EventType } from '../../server/events/publisher.ts';
import { freshPgDatabase, pgAvailability } from '../helpers/postgres.ts';

type Batch = { type: EventType; data: Record<string, unknown> }[];

const pg = pgAvailability();
if (!pg.available) console.warn(`SKIPPED (PostgreSQL events): ${pg.reason}`);

/** A hub that records what it was given. */
const recorder = () => {
  const batches: Batch[] = [];
  return { batches, publish: (events: Batch) => void batches.push(events) };
};
const ids = (batches: Batch[]) => batches.flat().map((e) => e.data.id);

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

describe.skipIf(!pg.available)('events through PostgreSQL NOTIFY', () => {
  let one: PgStore;
  let two: PgStore;
  const hubOne = recorder();
  const hubTwo = recorder();
  let bridgeOne: PgEventBridge;
  let bridgeTwo: PgEventBridge;

  beforeAll(async () => {
    const url = await freshPgDatabase();
    one = await PgStore.open(url);
    two = await PgStore.open(url);
    bridgeOne = await pgEventSink(one, hubOne);
    bridgeTwo = await pgEventSink(two, hubTwo);
  });
  afterAll(async () => {
    await bridgeOne?.close();
    await bridgeTwo?.close();
    await one?.close();
    await two?.close();
  });

  it("delivers a batch to every process's hub, the publisher's own before publish() resolves", async () => {
    await bridgeOne.publish([{ type: 'blacklist', data: { action: 'created', id: 1, Number: '555' } }]);
    expect(hubOne.batches).toEqual([[{ type: 'blacklist', data: { action: 'created', id: 1, Number: '555' } }]]);
    await expect.poll(() => hubTwo.batches).toEqual(hubOne.batches);
  });

  it('keeps the order of batches from both processes and carries batches far above 8000 bytes', async () => {
    const before = { one: hubOne.batches.length, two: hubTwo.batches.length };
    const big: Batch = Array.from({ length: 2000 }, (_, i) => ({ type: 'call', data: { action: 'opened', id: 1000 + i, TelephoneNumber: '+441234567890' } }));
    for (let i = 0; i < 10; i++) {
      await (i % 2 ? bridgeTwo : bridgeOne).publish([{ type: 'session', data: { action: 'opened', id: 100 + i } }]);
    }
    await bridgeTwo.publish(big);
    await expect.poll(() => hubOne.batches.length).toBe(before.one + 11);
    await expect.poll(() => hubTwo.batches.length).toBe(before.two + 11);
    const expected = [...Array.from({ length: 10 }, (_, i) => 100 + i), ...big.map((e) => e.data.id)];
    expect(ids(hubOne.batches.slice(before.one))).toEqual(expected);
    expect(ids(hubTwo.batches.slice(before.two))).toEqual(expected);
  });

  it('stores a large batch deflated and delivers it to the other process as written; a row it cannot read is skipped', async () => {
    const before = hubTwo.batches.length;
    const big: Batch = Array.from({ length: 10_000 }, (_, i) => ({ type: 'call', data: { action: 'created', id: 50_000 + i, Time: new Date(1.79e12 + i * 997).toISOString(), Duration: i % 600 } }));
    await bridgeOne.publish(big);
    const row = (await one.get<{ events: string; packed: Buffer | null }>('SELECT events, packed FROM event_outbox ORDER BY id DESC LIMIT 1'))!;
    expect(row.events).toBe('');
    expect(row.packed!.length).toBeLessThan(JSON.stringify(big).length / 4);
    await expect.poll(() => hubTwo.batches.length).toBe(before + 1);
    expect(hubTwo.batches[before]).toEqual(big);
    const broken = await one.value<number>("INSERT INTO event_outbox (time, events, packed) VALUES ((extract(epoch from clock_timestamp()) * 1000)::bigint, '', '\\x0102') RETURNING id");
    await bridgeOne.publish([{ type: 'blacklist', data: { action: 'created', id: 903 } }]);
    await expect.poll(() => ids(hubTwo.batches.slice(before + 1))).toEqual([903]); // the broken row between delivers nothing
    expect(broken).toBeGreaterThan(0);
  });

  it('delivers a notification parsed right after one whose batch needed no read, without waiting for the next', async () => {
    // pg parses a socket chunk's notifications one after another in one turn of the event loop. A batch this
    // process published itself (or one delivered already) passes through the bridge's queue without a single
    // await; the next notification of the same chunk used to find the queue still marked busy and wait there until
    // some later notification came, at the end of a burst forever (issue 25: one /events id missing on a server).
    const before = hubOne.batches.length;
    await bridgeOne.publish([{ type: 'blacklist', data: { action: 'created', id: 901 } }]);
    const delivered = await one.value<number>('SELECT max(id) FROM event_outbox');
    const other = await one.value<number>('INSERT INTO event_outbox (time, events) VALUES ((extract(epoch from clock_timestamp()) * 1000)::bigint, ?) RETURNING id', [
      JSON.stringify([{ type: 'blacklist', data: { action: 'created', id: 902 } }]),
    ]);
    const listener = (bridgeOne as unknown as { client: EventEmitter }).client;
    listener.emit('notification', { channel: 'cati_events', payload: String(delivered) });
    listener.emit('notification', { channel: 'cati_events', payload: String(other) });
    await expect.poll(() => ids(hubOne.batches.slice(before)), { timeout: 5000 }).toEqual([901, 902]);
  });

  it('reconnects a listener whose connection was cut and catches up on what was published meanwhile', async () => {
    const before = hubOne.batches.length;
    expect(await two.value("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND application_name = ?", [LISTENER_NAME])).toBe(2);
    await bridgeTwo.publish([{ type: 'interviewer', data: { action: 'locked', id: 7 } }]);
    await expect.poll(() => [bridgeOne.connections, bridgeTwo.connections], { timeout: 20_000 }).toEqual([2, 2]);
    expect(bridgeOne.listening && bridgeTwo.listening).toBe(true);
    await expect.poll(() => ids(hubOne.batches.slice(before)), { timeout: 20_000 }).toContain(7);
    // Both listeners were cut: the second one got it through its own reconnection too, exactly once.
    await expect.poll(() => ids(hubTwo.batches).filter((id) => id === 7), { timeout: 20_000 }).toEqual([7]);
    expect(ids(hubOne.batches).filter((id) => id === 7)).toEqual([7]);
  });
});
