import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startTestServer, TEST_API_KEY } from '../helpers/server.ts';
import { openEvents, until } from '../helpers/sse.ts';

describe('/events: a client that stops reading', () => {
  it('is dropped once its unsent output passes the bound, never buffered without end; it resumes with Last-Event-ID', async () => {
    const t = await startTestServer({ events: { heartbeatMs: 15_000, maxStreamsPerKey: 50, replayEvents: 10_000, maxBufferedBytes: 256 * 1024 } });
    try {
      const reader = await openEvents(t.url, TEST_API_KEY);
      // A raw client that sends its request and then never reads a byte.
      const { port } = new URL(t.url);
      const socket = connect(Number(port), '127.0.0.1');
      let closedByServer = false;
      socket.on('close', () => (closedByServer = true));
      socket.on('error', () => {});
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(`GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_API_KEY}\r\n\r\n`);
      socket.pause();
      await until(() => t.server.ctx.events.streamCount === 2, 5000, 'both streams open');

      // Publish in bounded rounds (at most 40 × 2,000 blacklist numbers) until the server drops the silent client.
      let sent = 0;
      for (let round = 0; round < 40 && t.server.ctx.events.streamCount === 2; round++) {
        const items = Array.from({ length: 2000 }, (_, i) => `9${String(round).padStart(3, '0')}${String(i).padStart(6, '0')}`);
        const r = await t.json('POST', '/cati/blacklist/Controller.Import', { body: { BlackListItems: items } });
        expect(r.body.Added).toBe(2000);
        sent += 2000;
        await reader.until(() => reader.events.length === sent, 20_000);
      }
      expect(t.server.ctx.events.streamCount).toBe(1);
      // Reading again, the dropped client finds its connection closed by the server after what was in flight.
      socket.resume();
      await until(() => closedByServer, 10_000, 'the server to close the silent client');
      // The client that kept reading lost nothing.
      expect(reader.events.length).toBe(sent);
      // A reconnect with the last id it saw gets what followed.
      const lastSeen = reader.events[sent - 3]!.id!;
      const resumed = await openEvents(t.url, TEST_API_KEY, { 'last-event-id': lastSeen });
      await resumed.until(() => resumed.events.length >= 2);
      expect(resumed.events.map((e) => e.id)).toEqual(reader.events.slice(sent - 2).map((e) => e.id));
      reader.close();
      resumed.close();
      socket.destroy();
    } finally {
      await t.close();
    }
  }, 60_000);
});
