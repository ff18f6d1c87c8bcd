/**
 * The Server-Sent Events hub behind GET /events (CONTRACT §9, §13): numbers events, keeps the last N for
 * `Last-Event-ID` replay, writes each published batch to every stream as one chunk, sends a comment every
 * heartbeat, limits streams per key, and drops a client whose unsent output still passes a bound when the
 * next batch comes (it reconnects with Last-Event-ID and gets what it missed, or a reset).
 */
import type { Response } from 'express';
import type { EventStreamLimits } from '../config.ts';
import type { EventSink, EventType } from './publisher.ts';

interface Stream {
  res: Response;
  key: string;
}

/** A kept event: its text, or (published while no stream was open) what the text is made of. */
type Kept = string | { id: number; type: EventType; data: Record<string, unknown> };

/** One event as the stream carries it. */
const eventText = (id: number, type: EventType, data: Record<string, unknown>) => `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`;

/** Why a stream was not opened. */
export type OpenRefusal = 'too-many-streams';

export class EventHub implements EventSink {
  /** Ids grow across restarts too: the first is derived from the start time (ms × 1000). */
  private latest = Date.now() * 1000;
  private readonly ring: Kept[] = [];
  private ringStart = 0; // index in `ring` of the oldest event
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
   * Numbers, keeps and sends a batch of committed changes (the publisher's sink). With no stream open, an
   * event is kept unserialised and turned into text only if a reconnecting client asks for it (a bulk import
   * publishes thousands that nobody may ever read).
   */
  publish(events: { type: EventType; data: Record<string, unknown> }[]): void {
    if (this.closed || events.length === 0) return;
    if (this.streams.size === 0) {
      for (const e of events) this.remember({ id: ++this.latest, type: e.type, data: e.data });
      return;
    }
    let chunk = '';
    for (const e of events) {
      const text = eventText(++this.latest, e.type, e.data);
      this.remember(text);
      chunk += text;
    }
    this.broadcast(chunk);
  }

  private remember(event: Kept): void {
    if (this.ring.length < this.limits.replayEvents) {
      this.ring.push(event);
      return;
    }
    this.ring[this.ringStart] = event;
    this.ringStart = (this.ringStart + 1) % this.ring.length;
  }

  /** The kept events after `lastId`, or undefined when `lastId` is not one of them (nor the latest id). */
  private replayAfter(lastId: string): string | undefined {
    if (!/^\d{1,16}$/.test(lastId)) return undefined;
    const id = Number(lastId);
    const oldest = this.latest - this.ring.length + 1;
    if (id === this.latest) return '';
    if (id < oldest || id > this.latest) return undefined;
    let out = '';
    for (let k = id - oldest + 1; k < this.ring.length; k++) {
      const at = (this.ringStart + k) % this.ring.length;
      const kept = this.ring[at]!;
      out += typeof kept === 'string' ? kept : (this.ring[at] = eventText(kept.id, kept.type, kept.data));
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
