/**
 * /events across server processes on one PostgreSQL database (docs/deployment.md#postgresql). A published batch becomes one
 * row of `event_outbox` (migration 016; NOTIFY payloads stop at 8000 bytes, a batch may not), announced in the
 * same statement with `NOTIFY cati_events, '<id>'`. Every process — this one too — LISTENs on a connection of
 * its own, reads each announced row and hands it to its hub, in commit order, so all streams carry the same
 * events in the same order. A batch this process announced itself is handed over from memory instead of read
 * back (an ingest of 10,000 calls makes a batch of megabytes). The listener reconnects with backoff when its connection drops and then catches up
 * on the rows it missed; rows are deleted a few minutes after they were written.
 *
 * Event ids (`id:` lines) stay per process: a client that moves to another server resumes with a `reset`.
 *
 * The same connection LISTENs on `cati_keys`, which a trigger on `api_keys` (migration 021) NOTIFYs whenever a
 * statement revokes keys: `keyVersion` moves on each such announcement and on every reconnection (the listener
 * may have missed some while away), and is undefined while the listener is down, so the key cache asks the
 * database again until it listens. A revocation through this server waits until every listener has answered a
 * nonce it announces after the commit (`revocationHeard`), so no server still accepts the key once it is answered.
 */
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import * as zlib from 'node:zlib';
import type pg from 'pg';
import type { PgStore } from '../db/pg-store.ts';
import type { EventHub } from './event-hub.ts';
import { eventData, type Change, type EventList, type EventSink, type EventType, type HubEvent } from './publisher.ts';

type Batch = EventList;

const deflate = promisify(zlib.deflate);
const inflate = promisify(zlib.inflate);

/**
 * A run of events in the outbox: consecutive events of one type whose data have the same keys in the same
 * order, the data as rows of values. An ingest of 10,000 calls is one run of 1 MB, where 10,000 objects each
 * naming their keys were 3 MB: the text made, sent and stored per batch was 60-100 ms of a 400 ms ingest
 * (JSON.stringify, Buffer.byteLength in pg's bind, the INSERT; node --cpu-prof and a /tmp INSERT timing).
 */
interface OutboxRun {
  type: EventType;
  keys: string[];
  rows: unknown[][];
}

/** The data's values when its own keys are exactly `keys`, in that order; else undefined. */
function valuesIn(data: Record<string, unknown>, keys: readonly string[]): unknown[] | undefined {
  const values = new Array<unknown>(keys.length);
  let i = 0;
  for (const key in data) {
    if (keys[i] !== key) return undefined;
    values[i++] = data[key];
  }
  return i === keys.length ? values : undefined;
}

/**
 * A change's data values ({action, id, ...record}) when its keys are exactly `keys`, read from the change without
 * making the data object; undefined when they differ or the record has keys of its own named action or id.
 */
function changeValuesIn(e: Change, record: Record<string, unknown>, keys: readonly string[]): unknown[] | undefined {
  if (keys[0] !== 'action' || keys[1] !== 'id') return undefined;
  const values = new Array<unknown>(keys.length);
  values[0] = e.action;
  values[1] = e.id;
  let i = 2;
  for (const key in record) {
    if (keys[i] !== key || key === 'action' || key === 'id') return undefined;
    values[i++] = record[key];
  }
  return i === keys.length ? values : undefined;
}

/** The outbox's text of a batch: a JSON array of runs (OutboxRun). */
export function outboxText(events: Batch): string {
  const runs: OutboxRun[] = [];
  let run: OutboxRun | undefined;
  for (let i = 0; i < events.length; i++) {
    const e = events.at(i)!;
    if (run && run.type === e.type) {
      const values = (!('data' in e) && e.record && changeValuesIn(e, e.record, run.keys)) || valuesIn(eventData(e), run.keys);
      if (values) {
        run.rows.push(values);
        continue;
      }
    }
    const data = eventData(e);
    runs.push((run = { type: e.type, keys: Object.keys(data), rows: [Object.values(data)] }));
  }
  return JSON.stringify(runs);
}

/** Outbox texts from this many characters on are stored deflated (`packed`, migration 023). */
const PACK_FROM = 64 * 1024;

/** An outbox row's batch: its JSON text, or (large) an empty text and the text deflated. */
interface OutboxRow {
  text: string;
  packed: Buffer | null;
}

/** What the outbox stores of a row as read back. */
interface StoredRow {
  id: number;
  time: number;
  events: string;
  packed: Buffer | null;
}

/** The outbox row of a batch; a large one deflated on libuv's threads (zlib level 1: 1 MB of calls in 250 KB). */
async function outboxRow(events: Batch): Promise<OutboxRow> {
  const text = outboxText(events);
  if (text.length < PACK_FROM) return { text, packed: null };
  return { text: '', packed: await deflate(text, { level: 1 }) };
}

/** A stored row's events (inflated on libuv's threads); none, with a warning, when it cannot be read. */
async function readRow(row: StoredRow): Promise<{ id: number; time: number; events: HubEvent[] }> {
  try {
    return { id: row.id, time: row.time, events: outboxEvents(row.packed ? (await inflate(row.packed)).toString() : row.events) };
  } catch (err) {
    console.warn(`Events of outbox row ${row.id} could not be read (${(err as Error).message}); skipped`);
    return { id: row.id, time: row.time, events: [] };
  }
}

/** The events of an outbox row: runs (outboxText), or the `{type, data}` objects of a row an older server wrote. */
export function outboxEvents(text: string): HubEvent[] {
  const events: HubEvent[] = [];
  for (const item of JSON.parse(text) as (OutboxRun | { type: EventType; data: Record<string, unknown> })[]) {
    if (!('keys' in item)) {
      events.push(item);
      continue;
    }
    for (const values of item.rows) {
      const data: Record<string, unknown> = {};
      for (let k = 0; k < item.keys.length; k++) {
        const key = item.keys[k]!;
        if (key === '__proto__') Object.defineProperty(data, key, { value: values[k], enumerable: true, writable: true, configurable: true });
        else data[key] = values[k];
      }
      events.push({ type: item.type, data });
    }
  }
  return events;
}

/** What the bridge delivers to: this process's EventHub. */
export type LocalHub = Pick<EventHub, 'publish'>;

const CHANNEL = 'cati_events';
/** NOTIFYed by the trigger of migration 021 when API keys are revoked. */
const KEYS_CHANNEL = 'cati_keys';
/** Where listeners answer a revocation's nonce (revocationHeard). */
const ACK_CHANNEL = 'cati_keys_ack';
/** The listener's application_name in pg_stat_activity. */
export const LISTENER_NAME = 'cati-events';
/** The database's clock in epoch ms (one clock for every process). */
const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

export interface PgEventOptions {
  /** How long outbox rows are kept (default 5 minutes): the catch-up window after a lost listener. */
  keepMs?: number;
  /** How often old rows are deleted (default 1 minute). */
  cleanupEveryMs?: number;
  /** How long publish() waits for this process's own listener to deliver the batch (default 5 s). */
  deliveryTimeoutMs?: number;
}

/** The event sink of a server on PostgreSQL, with its LISTEN connection. */
export interface PgEventBridge extends EventSink {
  /** Announces a batch to every process; resolves when this process's hub has it (or after the delivery timeout). */
  publish(events: Batch): Promise<void>;
  /** True while the LISTEN connection is up. */
  readonly listening: boolean;
  /** LISTEN connections made so far (1 + reconnections). */
  readonly connections: number;
  /** Moves whenever keys may have been revoked in any process; undefined while the listener is down (KeyChangeSignal). */
  readonly keyVersion: number | undefined;
  /** Resolves once every server's listener has heard of a revocation just committed, or after `timeoutMs` (KeyChangeSignal). */
  revocationHeard(timeoutMs: number): Promise<void>;
  /** Stops listening and cleaning up. */
  close(): Promise<void>;
}

/** Starts listening (resolves once LISTEN is in place) and returns the sink to attach to the store. */
export async function pgEventSink(store: PgStore, hub: LocalHub, options: PgEventOptions = {}): Promise<PgEventBridge> {
  const bridge = new Bridge(store, hub, options);
  await bridge.connect();
  return bridge;
}

class Bridge implements PgEventBridge {
  private client: pg.Client | null = null;
  connections = 0;
  /** Key announcements heard plus connections made (see keyVersion). */
  private keyChanges = 0;
  /** Revocations this process announced, by nonce: the listeners yet to answer, and the waiter to wake (revocationHeard). */
  private readonly keyAcks = new Map<string, { left: number; done: () => void }>();
  private closed = false;
  private backoffMs = 250;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly cleanupTimer: NodeJS.Timeout;
  /** Ids delivered to the hub, with the database time of their row (to skip them when catching up). */
  private readonly delivered = new Map<number, number>();
  private readonly waiting = new Map<number, () => void>();
  /** Batches this process announced and its listener has not delivered yet, by id, with their row's time. */
  private readonly mine = new Map<number, { events: Batch; time: number }>();
  private queue: number[] = [];
  /** True while drain() runs; `drained` settles when it ends (close() waits for it). */
  private draining = false;
  private drained: Promise<void> = Promise.resolve();
  /** Database time of the newest row delivered: where a catch-up starts. */
  private lastTime = 0;
  /** Database time when this process first listened: nothing older is its to deliver. */
  private startTime = 0;
  private readonly keepMs: number;
  private readonly timeoutMs: number;

  constructor(
    private readonly store: PgStore,
    private readonly hub: LocalHub,
    options: PgEventOptions,
  ) {
    this.keepMs = options.keepMs ?? 300_000;
    this.timeoutMs = options.deliveryTimeoutMs ?? 5000;
    this.cleanupTimer = setInterval(() => void this.cleanup(), options.cleanupEveryMs ?? 60_000);
    this.cleanupTimer.unref();
  }

  get listening(): boolean {
    return this.client !== null;
  }

  get keyVersion(): number | undefined {
    return this.client === null ? undefined : this.keyChanges;
  }

  /**
   * Announces on `cati_keys` a nonce after a revocation has committed, and resolves when as many listeners as
   * the database has (this one too) have answered it on `cati_keys_ack`. Each listener reads its notifications in
   * commit order, so one that answers has counted the revocation's own announcement (migration 021) already, and
   * its server refuses the key from then on. A listener that is away when asked counts its reconnection as a key
   * change anyway; the wait is bounded by `timeoutMs` in case one never answers.
   */
  async revocationHeard(timeoutMs: number): Promise<void> {
    if (this.client === null) return;
    const nonce = randomUUID();
    const listeners = (await this.store.value<number>(
      'SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database() AND application_name = ?',
      [LISTENER_NAME],
    ))!;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.keyAcks.delete(nonce);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      timer.unref();
      this.keyAcks.set(nonce, { left: listeners, done });
      this.store.value('SELECT pg_notify(?, ?)', [KEYS_CHANNEL, nonce]).catch(done);
    });
  }

  /** A notification on `cati_keys`: a key change; a nonce (revocationHeard) is answered on `cati_keys_ack`. */
  private keyChanged(client: pg.Client | null, nonce: string | undefined): void {
    this.keyChanges++;
    if (client && nonce) client.query('SELECT pg_notify($1, $2)', [ACK_CHANNEL, nonce]).catch(() => undefined);
  }

  private keyAcked(nonce: string | undefined): void {
    const waiting = nonce ? this.keyAcks.get(nonce) : undefined;
    if (waiting && --waiting.left <= 0) waiting.done();
  }

  async publish(events: Batch): Promise<void> {
    if (this.closed || events.length === 0) return;
    let id: number;
    try {
      const row = (await this.announce(events))!;
      id = row.id;
      if (!this.delivered.has(id)) this.mine.set(id, { events, time: row.time });
    } catch (err) {
      // The change is committed; only its announcement failed (the connection was cut, the database is away).
      // It is announced again in the background until the database takes it, so every server's streams get it
      // (through the listener, once); only when that fails for the whole catch-up window does this process alone.
      console.warn(`Events not announced yet (${(err as Error).message}); retrying`);
      void this.announceLater(events);
      return;
    }
    // Delivered already, or our listener is away (its catch-up delivers it later): nothing to wait for.
    if (this.delivered.has(id) || !this.client) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve();
      }, this.timeoutMs);
      timer.unref();
      this.waiting.set(id, () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * Writes a batch to the outbox and NOTIFYs it in one statement; resolves to its id. `again`: a retry after a
   * failure whose reply was lost may find its row written already (the statement may have committed before the
   * connection was cut), so it inserts only when no row of the catch-up window holds the same batch.
   */
  /** Batches' outbox rows made ahead (prepare), until announced. */
  private readonly prepared = new WeakMap<Batch, Promise<OutboxRow>>();

  prepare(events: Batch): void {
    if (events.length === 0) return;
    const row = outboxRow(events);
    row.catch(() => undefined); // a batch never published must not fail the process; announce() sees the failure
    this.prepared.set(events, row);
  }

  private async announce(events: Batch, again = false): Promise<{ id: number; time: number } | undefined> {
    const { text, packed } = await (this.prepared.get(events) ?? outboxRow(events));
    this.prepared.delete(events);
    if (!again) {
      return (await this.store.get<{ id: number; time: number }>(
        `WITH e AS (INSERT INTO event_outbox (time, events, packed) VALUES (${NOW_MS}, ?, ?) RETURNING id, time) SELECT id, time, pg_notify('${CHANNEL}', id::text) FROM e`,
        [text, packed],
      ))!;
    }
    return this.store.get<{ id: number; time: number }>(
      `WITH e AS (INSERT INTO event_outbox (time, events, packed) SELECT ${NOW_MS}, ?, ?
         WHERE NOT EXISTS (SELECT 1 FROM event_outbox WHERE time >= ${NOW_MS} - ? AND events = ? AND packed IS NOT DISTINCT FROM ?) RETURNING id, time)
       SELECT id, time, pg_notify('${CHANNEL}', id::text) FROM e`,
      [text, packed, this.keepMs, text, packed],
    );
  }

  /** Retries announce() with backoff (250 ms growing to 5 s) for up to the catch-up window; then delivers locally. */
  private async announceLater(events: Batch): Promise<void> {
    const deadline = Date.now() + this.keepMs;
    for (let pause = 250; !this.closed && Date.now() < deadline; pause = Math.min(pause * 2, 5000)) {
      await new Promise((resolve) => setTimeout(resolve, pause).unref());
      try {
        await this.announce(events, true);
        return;
      } catch {
        // still away
      }
    }
    console.warn('Events could not be announced to other servers; delivered to this server\'s streams only');
    this.hub.publish(events);
  }

  /** Opens the LISTEN connection; after a reconnection, queues the rows written while it was down. */
  async connect(): Promise<void> {
    const client = this.store.newClient(LISTENER_NAME);
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    client.on('notification', (msg) => {
      if (msg.channel === CHANNEL && msg.payload) this.enqueue([Number(msg.payload)]);
      else if (msg.channel === KEYS_CHANNEL) this.keyChanged(client, msg.payload);
      else if (msg.channel === ACK_CHANNEL) this.keyAcked(msg.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}; LISTEN ${KEYS_CHANNEL}; LISTEN ${ACK_CHANNEL}`);
      // First connection: rows written before this process listened are not its to deliver.
      if (this.startTime === 0) this.lastTime = this.startTime = (await client.query<{ now: number }>(`SELECT ${NOW_MS} AS now`)).rows[0]!.now;
    } catch (err) {
      client.end().catch(() => undefined);
      throw err;
    }
    if (this.closed) {
      await client.end();
      return;
    }
    const reconnected = this.connections > 0;
    this.keyChanged(null, undefined); // revocations announced while no listener heard them: every cached key is read again
    this.client = client;
    this.connections++;
    this.backoffMs = 250;
    if (reconnected) void this.catchUp();
  }

  /** Queues the rows written while the listener was away (retried until the database answers or the bridge closes). */
  private async catchUp(): Promise<void> {
    while (!this.closed) {
      try {
        // Rows committed late may carry an earlier time: look back a little further than the newest one seen.
        const ids = await this.store.column<number>('SELECT id FROM event_outbox WHERE time >= ? ORDER BY id', [
          Math.max(this.startTime, this.lastTime - 10_000),
        ]);
        this.enqueue(ids.filter((id) => !this.delivered.has(id)));
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  private lost(client: pg.Client, err?: Error): void {
    if (client !== this.client) return;
    this.client = null;
    client.end().catch(() => undefined);
    if (this.closed) return;
    console.warn(`Event listener lost its PostgreSQL connection${err ? ` (${err.message})` : ''}; reconnecting`);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connect().catch(() => {
        this.backoffMs = Math.min(this.backoffMs * 2, 5000);
        this.scheduleReconnect();
      });
    }, this.backoffMs);
    this.reconnectTimer.unref();
  }

  /**
   * Queues ids and starts drain() unless it runs. drain() clears `draining` in the same synchronous step that finds
   * the queue empty: a batch of this process's own runs through drain() without a single await, and a notification
   * parsed from the same socket chunk right after it must start a new drain, not wait for the next notification.
   */
  private enqueue(ids: number[]): void {
    this.queue.push(...ids);
    if (!this.draining) this.drained = this.drain();
  }

  /**
   * Reads the queued rows in batches (this process's own from memory) and delivers them in the order they were
   * announced. `draining` is cleared by the `finally` the loop's last check falls into, with no await between.
   */
  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length && !this.closed) {
        const ids = this.queue.splice(0, 500).filter((id) => !this.delivered.has(id));
        const others = ids.filter((id) => !this.mine.has(id));
        let stored: StoredRow[];
        try {
          stored = others.length ? await this.store.all<StoredRow>('SELECT id, time, events, packed FROM event_outbox WHERE id = ANY(?::bigint[])', [others]) : [];
        } catch {
          // The database is away for a moment: try these again shortly (close() ends the loop).
          this.queue.unshift(...ids);
          await new Promise((resolve) => setTimeout(resolve, 1000));
          continue;
        }
        const rows = await Promise.all(stored.map(readRow));
        const byId = new Map(rows.map((r) => [r.id, r]));
        for (const id of ids) {
          const own = this.mine.get(id);
          const row = own ?? byId.get(id);
          if (!row || this.delivered.has(id)) continue;
          this.mine.delete(id);
          this.delivered.set(id, row.time);
          this.lastTime = Math.max(this.lastTime, row.time);
          this.hub.publish(row.events);
          this.waiting.get(id)?.();
          this.waiting.delete(id);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  /** Deletes rows older than the catch-up window, and forgets their ids. */
  private async cleanup(): Promise<void> {
    try {
      await this.store.run(`DELETE FROM event_outbox WHERE time < ${NOW_MS} - ?`, [this.keepMs]);
    } catch {
      // The database is away; the next round deletes them.
    }
    for (const [id, time] of this.delivered) if (time < this.lastTime - this.keepMs - 60_000) this.delivered.delete(id);
    for (const [id, own] of this.mine) if (own.time < this.lastTime - this.keepMs - 60_000) this.mine.delete(id); // its row is gone
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.cleanupTimer);
    clearTimeout(this.reconnectTimer);
    for (const resolve of this.waiting.values()) resolve();
    this.waiting.clear();
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
    await this.drained;
  }
}
