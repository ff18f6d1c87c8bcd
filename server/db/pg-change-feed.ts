/**
 * The change feed on PostgreSQL (db/change-feed.ts; docs/events.md#several-servers): several servers on one
 * database, each with its own /events streams, all carrying every server's changes exactly once.
 *
 * Writing: a transaction that publishes a batch inserts one row of `event_outbox` (the batch as its codec's text,
 * deflated when large) and NOTIFYs `cati_events` with the row's id, in the same statement of the same transaction:
 * the row and the notification exist if and only if the change committed (NOTIFY is delivered at commit).
 *
 * Delivering: every server — the writer too — LISTENs on a connection of its own and delivers each announced row
 * to its subscriber in the order the notifications come, which is commit order. A row this server wrote is handed
 * over from memory instead of read back (an ingest of 10,000 calls makes a batch of megabytes). The writer's
 * commit waits (bounded) until its own listener has delivered, so an answered write is on this server's streams.
 *
 * Catching up: the listener remembers every row id it delivered while the row may still be in the table. When its
 * connection comes back it LISTENs again and then reads every row not delivered yet whose transaction committed
 * after this server first listened (`xid`, migration 026, against the snapshot taken then), in id order: rows of
 * concurrent transactions commit out of id order, so there is no "last id" below which all is known; the set of
 * ids delivered is what says it. Rows are deleted after `keepMs`; a listener away longer than that cannot know
 * what it missed, and the subscriber is told to reset.
 *
 * The same connection LISTENs on `cati_keys`, which a trigger on `api_keys` (migration 021) NOTIFYs whenever a
 * statement revokes keys: `keyVersion` moves on each such announcement and on every reconnection, and is undefined
 * while the listener is down. A revocation through this server waits until every listener has answered a nonce it
 * announces after the commit (`revocationHeard`), so no server still accepts the key once it is answered.
 */
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import * as zlib from 'node:zlib';
import type pg from 'pg';
import type { ChangeFeed, ChangeFeedOptions, FeedBatch, KeyChanges } from './change-feed.ts';
import type { PgStore } from './pg-store.ts';
import type { Queryable } from './store.ts';

const deflate = promisify(zlib.deflate);
const inflate = promisify(zlib.inflate);

const CHANNEL = 'cati_events';
/** NOTIFYed by the trigger of migration 021 when API keys are revoked. */
const KEYS_CHANNEL = 'cati_keys';
/** Where listeners answer a revocation's nonce (revocationHeard). */
const ACK_CHANNEL = 'cati_keys_ack';
/** The listener's application_name in pg_stat_activity. */
export const LISTENER_NAME = 'cati-events';
/** The database's clock in epoch ms (one clock for every server). */
const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';
/** Outbox texts from this many characters on are stored deflated (`packed`, migration 023). */
const PACK_FROM = 64 * 1024;
/** How much sooner than the rows' deletion a returning listener counts as having been away too long. */
const MARGIN_MS = 30_000;

/** An outbox row's batch: its text, or (large) an empty text and the text deflated. */
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

/** The outbox row of a text; a large one deflated on libuv's threads (zlib level 1: 1 MB of calls in 250 KB). */
async function outboxRow(text: string): Promise<OutboxRow> {
  if (text.length < PACK_FROM) return { text, packed: null };
  return { text: '', packed: await deflate(text, { level: 1 }) };
}

/** Opens the feed of `store`: resolves once its listener is in place. */
export async function openPgChangeFeed(store: PgStore, options: ChangeFeedOptions): Promise<PgChangeFeed> {
  const feed = new PgChangeFeed(store, options);
  await feed.connect();
  return feed;
}

export class PgChangeFeed implements ChangeFeed, KeyChanges {
  private client: pg.Client | null = null;
  connections = 0;
  /** Key announcements heard plus connections made (see keyVersion). */
  private keyChanges_ = 0;
  /** Revocations this server announced, by nonce: the listeners yet to answer, and the waiter to wake (revocationHeard). */
  private readonly keyAcks = new Map<string, { left: number; done: () => void }>();
  private closed = false;
  private backoffMs = 250;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly cleanupTimer: NodeJS.Timeout;
  /** Ids delivered, with the database time of their row (kept while the row may still be in the table). */
  private readonly delivered = new Map<number, number>();
  /** Commits waiting for their batch to be delivered here, by row id. */
  private readonly waiting = new Map<number, () => void>();
  /** Batches written by this server's transactions, by row id, until delivered (or their transaction failed). */
  private readonly mine = new Map<number, { batch: FeedBatch; time: number }>();
  /** Texts made ahead of the write (prepare). */
  private readonly prepared = new WeakMap<FeedBatch, Promise<OutboxRow>>();
  private queue: number[] = [];
  /** True while drain() runs; `drained` settles when it ends (close() waits for it). */
  private draining = false;
  private drained: Promise<void> = Promise.resolve();
  /** The snapshot taken when this server first listened: a row whose transaction it shows committed is not ours. */
  private startSnapshot = '';
  /** Database time of the newest row delivered. */
  private lastTime = 0;
  /** Delivered ids of rows older than this (database time) are forgotten; a catch-up reads no row older. */
  private forgetBefore = 0;
  /** When the listener lost its connection (this process's clock), while it is away. */
  private lostAt: number | undefined;
  private readonly keepMs: number;
  private readonly timeoutMs: number;

  constructor(
    private readonly store: PgStore,
    private readonly options: ChangeFeedOptions,
  ) {
    this.keepMs = options.keepMs ?? 300_000;
    this.timeoutMs = options.deliveryTimeoutMs ?? 5000;
    this.cleanupTimer = setInterval(() => void this.cleanup(), options.cleanupEveryMs ?? 60_000);
    this.cleanupTimer.unref();
  }

  get listening(): boolean {
    return this.client !== null;
  }

  get keyChanges(): KeyChanges {
    return this;
  }

  get keyVersion(): number | undefined {
    return this.client === null ? undefined : this.keyChanges_;
  }

  prepare(batch: FeedBatch): void {
    if (batch.length === 0) return;
    const row = outboxRow(this.options.codec.encode(batch));
    row.catch(() => undefined); // a batch never published must not fail the process; write() sees the failure
    this.prepared.set(batch, row);
  }

  /**
   * Writes `batch` in the transaction `tx` is (an outbox row and its NOTIFY, one statement); resolves to the row's
   * id, which the transaction hands to `committed` or `failed` when it ends.
   */
  async write(tx: Queryable, batch: FeedBatch): Promise<number> {
    const { text, packed } = await (this.prepared.get(batch) ?? outboxRow(this.options.codec.encode(batch)));
    this.prepared.delete(batch);
    const row = (await tx.get<{ id: number; time: number }>(
      `WITH e AS (INSERT INTO event_outbox (time, events, packed) VALUES (${NOW_MS}, ?, ?) RETURNING id, time)
       SELECT id, time, pg_notify('${CHANNEL}', id::text) FROM e`,
      [text, packed],
    ))!;
    this.mine.set(row.id, { batch, time: row.time });
    return row.id;
  }

  /** The transaction that wrote `ids` committed: resolves once this server delivered them (or after the delivery timeout). */
  async committed(ids: readonly number[]): Promise<void> {
    const pending = ids.filter((id) => !this.delivered.has(id));
    // The listener away: its catch-up delivers them when it is back; nothing to wait for.
    if (pending.length === 0 || !this.client || this.closed) return;
    await Promise.all(
      pending.map(
        (id) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => {
              this.waiting.delete(id);
              resolve();
            }, this.timeoutMs);
            timer.unref();
            this.waiting.set(id, () => {
              clearTimeout(timer);
              resolve();
            });
          }),
      ),
    );
  }

  /** The transaction that wrote `ids` rolled back (or a savepoint did): their rows never come. */
  failed(ids: readonly number[]): void {
    for (const id of ids) this.mine.delete(id);
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
    this.keyChanges_++;
    if (client && nonce) client.query('SELECT pg_notify($1, $2)', [ACK_CHANNEL, nonce]).catch(() => undefined);
  }

  private keyAcked(nonce: string | undefined): void {
    const waiting = nonce ? this.keyAcks.get(nonce) : undefined;
    if (waiting && --waiting.left <= 0) waiting.done();
  }

  /** Opens the LISTEN connection; after a reconnection, queues the rows committed while it was down. */
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
      // First connection: what committed before this snapshot is not this server's to deliver; what commits after
      // it is announced to this listener (or read by a catch-up).
      if (this.startSnapshot === '') {
        const r = (await client.query<{ snapshot: string; now: number }>(`SELECT pg_current_snapshot()::text AS snapshot, ${NOW_MS} AS now`)).rows[0]!;
        this.startSnapshot = r.snapshot;
        this.lastTime = r.now;
      }
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
    if (reconnected) {
      const away = Date.now() - (this.lostAt ?? Date.now());
      this.lostAt = undefined;
      if (away > this.keepMs - MARGIN_MS) {
        console.warn(`Event listener was away ${Math.round(away / 1000)} s, longer than the outbox keeps rows; streams are told to reset`);
        this.options.reset();
      }
      void this.catchUp();
    }
  }

  /** Queues every row committed since this server first listened and not delivered yet, in id order (retried until the database answers). */
  private async catchUp(): Promise<void> {
    while (!this.closed) {
      try {
        const ids = await this.store.column<number>(
          'SELECT id FROM event_outbox WHERE time >= ? AND NOT pg_visible_in_snapshot(xid::text::xid8, ?::pg_snapshot) ORDER BY id',
          [this.forgetBefore, this.startSnapshot],
        );
        this.enqueue(ids.filter((id) => !this.delivered.has(id)));
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 1000).unref());
      }
    }
  }

  private lost(client: pg.Client, err?: Error): void {
    if (client !== this.client) return;
    this.client = null;
    this.lostAt ??= Date.now();
    client.end().catch(() => undefined);
    // Commits waiting for this listener answer now; its catch-up delivers their batches.
    for (const wake of this.waiting.values()) wake();
    this.waiting.clear();
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
   * the queue empty: a batch of this server's own runs through drain() without a single await, and a notification
   * parsed from the same socket chunk right after it must start a new drain, not wait for the next notification.
   */
  private enqueue(ids: number[]): void {
    this.queue.push(...ids);
    if (!this.draining) this.drained = this.drain();
  }

  /** A stored row's batch (inflated on libuv's threads); undefined, with a warning, when it cannot be read. */
  private async readRow(row: StoredRow): Promise<FeedBatch | undefined> {
    try {
      return this.options.codec.decode(row.packed ? (await inflate(row.packed)).toString() : row.events);
    } catch (err) {
      console.warn(`Events of outbox row ${row.id} could not be read (${(err as Error).message}); streams are told to reset`);
      return undefined;
    }
  }

  /**
   * Reads the queued rows in batches (this server's own from memory) and delivers them in the order they were
   * queued. `draining` is cleared by the `finally` the loop's last check falls into, with no await between.
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
          await new Promise((resolve) => setTimeout(resolve, 1000).unref());
          continue;
        }
        const read = await Promise.all(stored.map(async (r) => ({ id: r.id, time: r.time, batch: await this.readRow(r) })));
        const byId = new Map(read.map((r) => [r.id, r]));
        for (const id of ids) {
          const row = this.mine.get(id) ?? byId.get(id);
          if (!row || this.delivered.has(id)) continue;
          this.mine.delete(id);
          this.delivered.set(id, row.time);
          this.lastTime = Math.max(this.lastTime, row.time);
          if (row.batch) this.deliver(row.batch);
          else this.options.reset();
          this.waiting.get(id)?.();
          this.waiting.delete(id);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private deliver(batch: FeedBatch): void {
    try {
      this.options.deliver(batch);
    } catch (err) {
      console.warn(`A committed batch of events could not be delivered: ${(err as Error).message}`);
    }
  }

  /** Deletes rows older than the catch-up window, and forgets their ids. */
  private async cleanup(): Promise<void> {
    try {
      await this.store.run(`DELETE FROM event_outbox WHERE time < ${NOW_MS} - ?`, [this.keepMs]);
    } catch {
      // The database is away; the next round deletes them.
    }
    // A catch-up reads no row older than this, so forgetting their ids delivers none of them twice.
    this.forgetBefore = Math.max(this.forgetBefore, this.lastTime - this.keepMs - 60_000);
    for (const [id, time] of this.delivered) if (time < this.forgetBefore) this.delivered.delete(id);
    for (const [id, own] of this.mine) if (own.time < this.forgetBefore) this.mine.delete(id); // its transaction never ended well
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.cleanupTimer);
    clearTimeout(this.reconnectTimer);
    for (const wake of this.waiting.values()) wake();
    this.waiting.clear();
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
    await this.drained;
  }
}
