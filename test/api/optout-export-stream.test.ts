/**
 * The opt-out CSV export under a slow and a vanishing client, on a list large enough (400,000 entries, ~18 MB)
 * that the socket buffers fill. Back-pressure: while the client reads nothing, the export holds its read
 * snapshot (a WAL checkpoint cannot pass it) instead of racing through the list into memory, and the server
 * keeps answering; once the client reads on, every row arrives. Client abort: the export stops and releases
 * its connection (the checkpoint can pass again).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { setImmediate as tick } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.ts';

const ROWS = 400_000;
let t: TestServer;
let listId: number;
beforeAll(async () => {
  t = await startTestServer();
  listId = (await t.json('POST', '/optout/lists', { body: { projectId: 'p8000' } })).body.id;
  t.server.ctx.db
    .prepare(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1)
       INSERT INTO optout_emails (list_id, email_address, timestamp) SELECT ?, 'person' || i || '@domain' || (i % 500) || '.example', 1700000000000 + i FROM n`,
    )
    .run(ROWS, listId);
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

/** Whether a reader holds up the WAL: a passive checkpoint (never waits) cannot copy every frame back. */
function checkpointBlocked(): boolean {
  const [row] = t.server.ctx.db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
  return row!.checkpointed < row!.log;
}

async function until(cond: () => boolean, what: string) {
  for (const deadline = Date.now() + 10_000; !cond(); await tick()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

describe('opt-out export streaming', () => {
  it('a paused client holds the export (back-pressure), the server answers others, and reading on delivers every row', async () => {
    const { res } = await openPausedExport();
    // A write after the export's snapshot: the checkpoint cannot get past a reader that is still iterating.
    await t.json('POST', `/optout/lists/${listId}/emails`, { body: { emailAddress: 'late@example.com' } });
    expect(checkpointBlocked()).toBe(true);
    expect((await t.json('GET', '/healthz', { key: null })).status).toBe(200);
    expect(checkpointBlocked()).toBe(true); // still held: the export waits for the client, it did not run ahead
    res.resume();
    let text = '';
    res.setEncoding('utf8');
    for await (const chunk of res) text += chunk as string;
    const lines = text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('emailAddress,timestamp,unsubscribedFrom');
    expect(lines).toHaveLength(ROWS + 1); // the snapshot: the late entry is not in this export
    expect(lines[1]).toBe('person0@domain0.example,2023-11-14T22:13:20.000Z,');
    await until(() => !checkpointBlocked(), 'the export to release its reader');
  }, 60_000);

  it('a client that goes away stops the export and frees its read connection', async () => {
    const { destroy } = await openPausedExport();
    await t.json('POST', `/optout/lists/${listId}/emails`, { body: { emailAddress: 'later@example.com' } });
    expect(checkpointBlocked()).toBe(true);
    destroy();
    await until(() => !checkpointBlocked(), 'the aborted export to release its reader');
    expect((await t.json('GET', '/healthz', { key: null })).status).toBe(200);
  }, 60_000);
});
