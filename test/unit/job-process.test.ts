import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../server/db/sqlite-store.ts';
import { siblingModule } from '../../server/db/start-worker.ts';
import { JobChannel } from '../../server/scrub/job-channel.ts';
import { jobFileRows } from '../../server/scrub/job-files.ts';
import type { FromJob, ScrubJobData } from '../../server/scrub/scrub-protocol.ts';

// server/scrub/scrub-job-process.ts: a scrub runs in a process of its own, with its own database connection
// (docs/performance.md#memory-after-a-job).

const dir = mkdtempSync(join(tmpdir(), 'cati-job-process-'));
const file = join(dir, 'numbers.csv');
const ENTRY = siblingModule('scrub-job-process', new URL('../../server/scrub/scrub-runner.ts', import.meta.url).href);
const BLACKLIST = { query: { table: 'blacklist', value: 'telephone_number', code: "CASE WHEN type = 'StartWith' THEN '1' ELSE '0' END" }, params: [], listId: 0 };
let store: SqliteStore;

beforeAll(async () => {
  writeFileSync(file, 'Phone\n0612345678\n0205550198\n');
  store = SqliteStore.open(join(dir, 'cati.sqlite'));
  await store.run("INSERT INTO blacklist (telephone_number, type, created) VALUES ('0205550198', 'Equal', 0)");
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const dataFor = (jobId: string): ScrubJobData => ({
  jobId,
  parse: { filePath: file, format: 'text', kind: 'phone', region: null, maxRows: 10, headRows: 5 },
  heapMb: 64,
  list: [BLACKLIST],
});

/** Runs `fn` with `build` as CATI_WORKER_BUILD (undefined: none, through tsx). */
async function withBuild<T>(build: string | undefined, fn: () => Promise<T>): Promise<T> {
  const before = process.env.CATI_WORKER_BUILD;
  if (build === undefined) delete process.env.CATI_WORKER_BUILD;
  else process.env.CATI_WORKER_BUILD = build;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.CATI_WORKER_BUILD;
    else process.env.CATI_WORKER_BUILD = before;
  }
}

/** The first message of a job started with `build` as CATI_WORKER_BUILD. */
function firstMessage(build: string | undefined): Promise<FromJob> {
  return withBuild(build, async () => {
    const channel = new JobChannel(ENTRY, dataFor('first'));
    try {
      channel.send({ type: 'database', url: store.connectionUrl() });
      return await channel.next();
    } finally {
      await channel.stop();
    }
  });
}

describe('a scrub job in a process of its own', () => {
  it('answers the same through tsx and from the compiled copy', async () => {
    const expected = { type: 'head', rows: [['Phone'], ['0612345678'], ['0205550198']], encoding: 'utf-8' };
    expect(await firstMessage(undefined)).toEqual(expected);
    expect(await firstMessage(process.env.CATI_WORKER_BUILD)).toEqual(expected);
  });

  it('says when the process stopped before its end', async () => {
    expect(await firstMessage(dir)).toEqual({ type: 'error', message: 'the job stopped before its end' });
  });

  it('reads the list and stores the result files through its own connection, then is gone', async () => {
    const kept = join(dir, 'kept.jsonl');
    const removed = join(dir, 'removed.jsonl');
    const channel = new JobChannel(ENTRY, dataFor('whole'));
    channel.send({ type: 'database', url: store.connectionUrl() });
    expect((await channel.next()).type).toBe('head');
    channel.send({ type: 'start', column: 0, header: true, width: 1, dedupe: false, annotate: false, keptPath: kept, removedPath: removed, keptHead: '["Phone"]\n', removedHead: '["Phone","Reason"]\n' });
    expect(await channel.next()).toEqual({ type: 'count', rows: 2 });
    let m = await channel.next();
    while (m.type === 'progress') m = await channel.next();
    expect(m).toEqual({ type: 'end', files: { kept: 1, removed: 1 } });
    const rows = async (name: 'kept' | 'removed') => {
      const all: string[][] = [];
      for await (const row of jobFileRows(store, 'whole', name, 1)) all.push(row);
      return all;
    };
    expect(await rows('kept')).toEqual([['Phone'], ['0612345678']]);
    expect((await rows('removed'))[1]![0]).toBe('0205550198');
    expect(readFileSync(kept, 'utf8')).toBe('["Phone"]\n["0612345678"]\n');
    await channel.stop();
    expect(() => channel.send({ type: 'database', url: '' })).toThrow(/stopped/);
    expect(existsSync(kept)).toBe(true); // the server removes the job's directory, not the job
  });

  it("fails the job with the database's reason when the list cannot be read", async () => {
    const channel = new JobChannel(ENTRY, { ...dataFor('no-list'), list: [{ ...BLACKLIST, query: { ...BLACKLIST.query, table: 'no_such_table' } }] });
    channel.send({ type: 'database', url: store.connectionUrl() });
    expect((await channel.next()).type).toBe('head');
    channel.send({ type: 'start', column: 0, header: true, width: 1, dedupe: false, annotate: false, keptPath: join(dir, 'k2'), removedPath: join(dir, 'r2'), keptHead: '', removedHead: '' });
    expect((await channel.next()).type).toBe('count');
    expect(await channel.next()).toMatchObject({ type: 'error', message: expect.stringMatching(/no such table/) });
    await channel.stop();
  });
});
