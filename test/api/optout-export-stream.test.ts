/**
 * The opt-out CSV export under a slow and a vanishing client, on a list large enough (400,000 entries, ~18 MB)
 * that the socket buffers fill. Back-pressure: while the client reads nothing, the export holds its read
 * snapshot (SQLite: a WAL checkpoint cannot pass it; PostgreSQL: its backend keeps a snapshot horizon) instead of
 * racing through the list into memory, and the server keeps answering; once the client reads on, every row
 * arrives. Client abort: the export stops and releases its connection (the snapshot is let go).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { setImmediate as tick } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readerHoldsSnapshot } from '../helpers/engine.ts';
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.ts';

const ROWS = 400_000;
let t: TestServer;
let listId: number;
beforeAll(async () => {
  t = await startTestServer();
  // Connection: close, so no keep-alive socket sits idle through the insert below, which holds this process's event
  // loop for seconds (SQLite runs it synchronously): the server's keep-alive timer and fetch's then fire together,
  // and the first request after the insert could go out on a socket the server has just closed ("other side closed").
  listId = (await t.json('POST', '/optout/lists', { body: { projectId: 'p8000' }, headers: { connection: 'close' } })).body.id;
  await t.server.ctx.store.run(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1)
     INSERT INTO optout_emails (list_id, email_address, timestamp)
     SELECT CAST(? AS INTEGER), 'person' || i || '@domain' || (i % 500) || '.example', 1700000000000 + i FROM n`,
    [ROWS, listId],
  );
});
afterAll(() => t.close());

/** Opens the export and resolves with the response once its first bytes arrived, then paused. */
function openPausedExport(): Promise<{ res: IncomingMessage; destroy: () => void }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${t.url}/optout/lists/${listId}/emails/export`, { headers: { authorization: `Bearer ${TEST_API_KEY}` } }, (res) => {
      res.once('data', (first: Buffer) => {
        res.pause();
        res.unshift(first);
        resolve({ res, destroy: () => req.destroy() });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Whether the export's reader still holds its snapshot (test/helpers/engine.ts, per engine). */
const readerHeld = () => readerHoldsSnapshot(t.server.ctx.store);

async function until(cond: () => Promise<boolean>, what: string) {
  for (const deadline = Date.now() + 10_000; !(await cond()); await tick()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

describe('opt-out export streaming', () => {
  it('a paused client holds the export (back-pressure), the server answers others, and reading on delivers every row', async () => {
    const { res } = await openPausedExport();
    // A write after the export's snapshot: the checkpoint cannot get past a reader that is still iterating.
    await t.json('POST', `/optout/lists/${listId}/emails`, { body: { emailAddress: 'late@example.com' } });
    expect(await readerHeld()).toBe(true);
    expect((await t.json('GET', '/healthz', { key: null })).status).toBe(200);
    expect(await readerHeld()).toBe(true); // still held: the export waits for the client, it did not run ahead
    res.resume();
    let text = '';
    res.setEncoding('utf8');
    for await (const chunk of res) text += chunk as string;
    const lines = text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('emailAddress,timestamp,unsubscribedFrom');
    expect(lines).toHaveLength(ROWS + 1); // the snapshot: the late entry is not in this export
    expect(lines[1]).toBe('person0@domain0.example,2023-11-14T22:13:20.000Z,');
    await until(async () => !(await readerHeld()), 'the export to release its reader');
  }, 60_000);

  it('a client that goes away stops the export and frees its read connection', async () => {
    const { destroy } = await openPausedExport();
    await t.json('POST', `/optout/lists/${listId}/emails`, { body: { emailAddress: 'later@example.com' } });
    expect(await readerHeld()).toBe(true);
    destroy();
    await until(async () => !(await readerHeld()), 'the aborted export to release its reader');
    expect((await t.json('GET', '/healthz', { key: null })).status).toBe(200);
  }, 60_000);
});
