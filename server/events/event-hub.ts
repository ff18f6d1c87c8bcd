/**
 * The Server-Sent Events hub behind GET /events (docs/events.md#events, docs/limits.md#limits): numbers events, keeps the last N for
 * `Last-Event-ID` replay, writes each published batch to every stream as one chunk, sends a comment every
 * heartbeat, limits streams per key, and drops a client whose unsent output still passes a bound when the
 * next batch comes (it reconnects with Last-Event-ID and gets what it missed, or a reset).
 */
import type { Response } from 'express';
import type { EventStreamLimits } from '../config.ts';
import { eventData, type EventList, type HubEvent } from './publisher.ts';

interface Stream {
  res: Response;
  key: string;
}

/**
 * A published batch as kept for `Last-Event-ID` replay: its events (as the publisher gave them, not copied), the
 * id of the first, and their texts once made (at publish while a stream is open, else only if a replay asks).
 * Events before `start` have left the replay window.
 */
interface KeptBatch {
  first: number;
  events: EventList;
  start: number;
  texts?: string[];
}

/** One event as the stream carries it. */
const eventText = (id: number, e: HubEvent) => `id: ${id}\nevent: ${e.type}\ndata: ${JSON.stringify(eventData(e))}\n\n`;

/** Why a stream was not opened. */
export type OpenRefusal = 'too-many-streams';

export class EventHub {
  /** Ids grow across restarts too: the first is derived from the start time (ms × 1000). */
  private latest = Date.now() * 1000;
  /** The replay window, oldest batch first; `kept` events in all (at most limits.replayEvents). */
  private readonly batches: KeptBatch[] = [];
  private kept = 0;
  private readonly streams = new Set<Stream>();
  private readonly perKey = new Map<string, number>();
  private readonly heartbeat: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly limits: EventStreamLimits) {
    this.heartbeat = setInterval(() => this.broadcast(': keep-alive\n\n'), limits.heartbeatMs);
    this.heartbeat.unref();
  }

  /** The id of the newest event (the start id when there is none yet). */
  get latestId(): number {
    return this.latest;
  }

  /** Number of open streams (for tests and the bench). */
  get streamCount(): number {
    return this.streams.size;
  }

  /**
   * Numbers, keeps and sends a batch of committed changes (the publisher's sink). The batch is kept as given, one
   * entry for all its events: an import of 10,000 numbers used to copy each event into two more objects kept for
   * replay, and collecting them when the next import pushed them out cost the import a third of its time. With no
   * stream open an event is turned into text only if a reconnecting client asks for it.
   */
  publish(events: EventList): void {
    if (this.closed || events.length === 0) return;
    const batch: KeptBatch = { first: this.latest + 1, events, start: 0 };
    this.latest += events.length;
    if (this.streams.size > 0) {
      const texts = (batch.texts = new Array<string>(events.length));
      for (let i = 0; i < events.length; i++) texts[i] = eventText(batch.first + i, events.at(i)!);
      this.broadcast(texts.join(''));
    }
    this.batches.push(batch);
    this.kept += events.length;
    // Drop what left the window: whole batches, then the oldest events of the batch that straddles its edge.
    while (this.kept > this.limits.replayEvents) {
      const oldest = this.batches[0]!;
      const excess = this.kept - this.limits.replayEvents;
      const left = oldest.events.length - oldest.start;
      if (left <= excess) {
        this.batches.shift();
        this.kept -= left;
      } else {
        oldest.start += excess;
        this.kept -= excess;
      }
    }
  }

  /**
   * Tells every stream to reload (`event: reset`, docs/events.md#reset) and forgets the replay window: the change
   * feed could not know whether it missed changes. A client resuming from an earlier id gets a reset too.
   */
  reset(): void {
    if (this.closed) return;
    this.batches.length = 0;
    this.kept = 0;
    this.broadcast(`id: ${this.latest}\nevent: reset\ndata: {}\n\n`);
  }

  /** The kept events after `lastId`, or undefined when `lastId` is not one of them (nor the latest id). */
  private replayAfter(lastId: string): string | undefined {
    if (!/^\d{1,16}$/.test(lastId)) return undefined;
    const id = Number(lastId);
    const oldest = this.latest - this.kept + 1;
    if (id === this.latest) return '';
    if (id < oldest || id > this.latest) return undefined;
    let out = '';
    for (const b of this.batches) {
      if (b.first + b.events.length - 1 <= id) continue;
      const texts = (b.texts ??= new Array<string>(b.events.length));
      for (let k = Math.max(b.start, id - b.first + 1); k < b.events.length; k++) out += texts[k] ??= eventText(b.first + k, b.events.at(k)!);
    }
    return out;
  }

  private broadcast(chunk: string): void {
    for (const s of this.streams) this.write(s, chunk);
  }

  private write(s: Stream, chunk: string): void {
    if (s.res.writableLength > this.limits.maxBufferedBytes) {
      // A client that stopped reading (what was sent before is still unsent): drop it rather than buffer
      // without bound. Memory per stream stays under the bound plus one batch (≤ 10,000 events).
      this.drop(s);
      s.res.destroy();
      return;
    }
    s.res.write(chunk);
  }

  private drop(s: Stream): void {
    if (!this.streams.delete(s)) return;
    const n = (this.perKey.get(s.key) ?? 1) - 1;
    if (n > 0) this.perKey.set(s.key, n);
    else this.perKey.delete(s.key);
  }

  /**
   * Starts a stream on `res` for the key `key`: headers at once, then a replay after `lastEventId` (or a
   * reset when it is unknown), then live events until the client goes away.
   */
  open(res: Response, key: string, lastEventId: string | undefined): OpenRefusal | undefined {
    if ((this.perKey.get(key) ?? 0) >= this.limits.maxStreamsPerKey) return 'too-many-streams';
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    const stream: Stream = { res, key };
    this.streams.add(stream);
    this.perKey.set(key, (this.perKey.get(key) ?? 0) + 1);
    res.on('close', () => this.drop(stream));
    let first = ': connected\n\n';
    if (lastEventId !== undefined) {
      const replay = this.replayAfter(lastEventId.trim());
      first += replay ?? `id: ${this.latest}\nevent: reset\ndata: {}\n\n`;
    }
    this.write(stream, first);
    return undefined;
  }

  /** Ends every stream and stops the heartbeat (server shutdown). */
  close(): void {
    this.closed = true;
    clearInterval(this.heartbeat);
    for (const s of [...this.streams]) {
      this.drop(s);
      s.res.end();
    }
  }
}
