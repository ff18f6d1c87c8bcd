/**
 * The import service: its limits (time, memory, concurrency), both bulk inserts it is given (SQLite's, staged
 * on the import worker's own connection, and the portable one PostgreSQL's Store hands out, run here on a
 * SqliteStore: the same portable SQL), and the modules each worker loads.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import XLSX from 'xlsx';
import { CLI_ACTOR } from '../../server/audit/audit-log.ts';
import { openDatabase } from '../../server/db/open.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';
import { ApiError } from '../../server/errors.ts';
import { insertMany } from '../../server/db/bulk.ts';
import { collectedBulkInsert } from '../../server/db/bulk-insert.ts';
import type { Store } from '../../server/db/store.ts';
import { DEFAULT_IMPORT_LIMITS, ImportService } from '../../server/optout/import-service.ts';
import { ensureList } from '../../server/optout/lists.ts';
import { moduleClosure } from '../helpers/module-closure.ts';

let dir: string;
let store: SqliteStore;
let listId: number;
let file: string;
let mixed: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'optout-import-service-'));
  store = SqliteStore.open(join(dir, 'cati.sqlite'));
  listId = (await ensureList(store, 1, 'p1')).id;
  file = join(dir, 'rows.csv');
  writeFileSync(file, Array.from({ length: 50_000 }, (_, i) => `u${i}@x.example`).join('\n'));
  // 12,000 valid rows (every 4th repeats an earlier one: 9,000 distinct), and 3 invalid ones.
  mixed = join(dir, 'mixed.csv');
  const rows = Array.from({ length: 12_000 }, (_, i) => `U${i % 4 === 3 ? i - 1 : i}@X.example`);
  writeFileSync(mixed, ['EmailAddress', ...rows, 'not-an-address', '@x.example', 'a@'].join('\n'));
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The store with PostgreSQL's bulk insert: the values collected on the main thread, written in one transaction. */
const collecting = (): Store =>
  new Proxy(store, { get: (target, key) => (key === 'bulkInsert' ? (t: never, o: never) => collectedBulkInsert(target, t, o) : Reflect.get(target, key, target)) as unknown });

/**
 * A service whose imports all go to the workers (the files here are small), unless `limits` says otherwise;
 * `bulk: 'collected'`: through the portable bulk insert.
 */
const service = (limits: Partial<typeof DEFAULT_IMPORT_LIMITS>, bulk: 'own' | 'collected' = 'own') =>
  new ImportService({ store: bulk === 'own' ? store : collecting() }, { ...DEFAULT_IMPORT_LIMITS, inlineBytes: 0, ...limits });
const count = (list = listId) => store.value<number>('SELECT count(*) FROM optout_emails WHERE list_id = ?', [list]);
const audits = (list: number) =>
  store.column<string>("SELECT changes FROM audit_log WHERE entity = 'optout-imports' AND entity_id = ? ORDER BY id", [String(list)]);

async function failure(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('ImportService limits', () => {
  it('terminates a worker that exceeds the time limit → 413, nothing stored', async () => {
    const err = await failure(service({ parseTimeoutMs: 1 }).importFile(listId, 'emails', 'rows.csv', file, CLI_ACTOR));
    expect(err.status).toBe(413);
    expect(err.message).toMatch(/within/);
    expect(await count()).toBe(0);
  });

  it('a worker that runs out of its memory limit → 413, nothing stored', async () => {
    const err = await failure(service({ heapMb: 4 }).importFile(listId, 'emails', 'rows.csv', file, CLI_ACTOR));
    expect(err.status).toBe(413);
    expect(err.message).toMatch(/memory/);
    expect(await count()).toBe(0);
  });

  it('queues imports beyond the concurrency limit and refuses beyond the queue (429 Retry-After)', async () => {
    const s = service({ maxConcurrent: 1, maxWaiting: 1, maxWaitMs: 120_000 });
    const runs = [1, 2, 3].map(() => s.importFile(listId, 'emails', 'rows.csv', file, CLI_ACTOR).then((r) => r, (e: unknown) => e));
    const results = await Promise.all(runs);
    const refused = results.filter((r) => r instanceof ApiError) as ApiError[];
    const done = results.filter((r) => !(r instanceof ApiError));
    expect(refused).toHaveLength(1);
    expect(refused[0]!.status).toBe(429);
    expect(refused[0]!.headers).toEqual({ 'Retry-After': '10' });
    // The two admitted imports ran one after the other: one stored everything, the other found duplicates.
    expect(done).toEqual(
      expect.arrayContaining([
        { newRows: 50_000, duplicatedRows: 0, invalidRows: 0, invalidItems: [], encoding: 'utf-8' },
        { newRows: 0, duplicatedRows: 50_000, invalidRows: 0, invalidItems: [], encoding: 'utf-8' },
      ]),
    );
  });
});

describe('imports under load: refused promptly with Retry-After, never left hanging', () => {
  it('an import that cannot start within maxWaitMs → 503 + Retry-After; one beyond the queue → 429 at once; the running one completes', async () => {
    const { id } = await ensureList(store, 1, 'p25');
    const small = join(dir, 'small.csv');
    writeFileSync(small, Array.from({ length: 100 }, (_, i) => `q${i}@x.example`).join('\n'));
    const s = service({ maxConcurrent: 1, maxWaiting: 1, maxWaitMs: 1500, writeTimeoutMs: 60_000 });
    const holder = openDatabase(join(dir, 'cati.sqlite'), { migrate: false });
    holder.exec('BEGIN IMMEDIATE'); // the running import waits for the write lock
    const settle = (p: Promise<unknown>) => {
      const t0 = Date.now();
      return p.then(
        (r) => ({ r, ms: Date.now() - t0 }),
        (e: unknown) => ({ r: e, ms: Date.now() - t0 }),
      );
    };
    try {
      const running = settle(s.importFile(id, 'emails', 'small.csv', small, CLI_ACTOR));
      await sleep(300);
      const waiting = settle(s.importFile(id, 'emails', 'small.csv', small, CLI_ACTOR));
      await sleep(300);
      const beyond = await settle(s.importFile(id, 'emails', 'small.csv', small, CLI_ACTOR));
      expect(beyond.r).toBeInstanceOf(ApiError);
      expect((beyond.r as ApiError).status).toBe(429);
      expect((beyond.r as ApiError).headers).toEqual({ 'Retry-After': '10' });
      expect(beyond.ms).toBeLessThan(1000);
      const waited = await waiting;
      expect(waited.r).toBeInstanceOf(ApiError);
      expect((waited.r as ApiError).status).toBe(503);
      expect((waited.r as ApiError).headers).toEqual({ 'Retry-After': '10' });
      expect((waited.r as ApiError).message).toMatch(/could not start this one within 1.5 s/);
      expect(waited.ms).toBeGreaterThanOrEqual(1400);
      expect(waited.ms).toBeLessThan(5000);
      holder.exec('COMMIT');
      expect((await running).r).toMatchObject({ newRows: 100 });
      // The queue is free again: the next import runs.
      expect(await s.importFile(id, 'emails', 'small.csv', small, CLI_ACTOR)).toMatchObject({ duplicatedRows: 100 });
    } finally {
      if (holder.inTransaction) holder.exec('ROLLBACK');
      holder.close();
    }
  }, 60_000);
});

describe('kept workers: an import starts no thread when a clean one is idle', () => {
  const csv = (name: string, rows: string[]) => {
    const f = join(dir, name);
    writeFileSync(f, rows.join('\n'));
    return f;
  };
  const workbook = () => {
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['Email'], ['wb1@x.example'], ['wb2@x.example']]), 'Sheet1');
    const f = join(dir, 'book.xlsx');
    writeFileSync(f, XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer);
    return f;
  };

  it('imports one after another reuse one import worker, with the same answers', async () => {
    const { id } = await ensureList(store, 1, 'p30');
    const s = service({});
    try {
      for (let k = 0; k < 3; k++) {
        const f = csv(`kept${k}.csv`, ['Email', `k${k}@x.example`, 'shared@x.example', 'nope']);
        const r = await s.importFile(id, 'emails', 'kept.csv', f, CLI_ACTOR);
        expect(r).toMatchObject({ newRows: k === 0 ? 2 : 1, duplicatedRows: k === 0 ? 0 : 1, invalidRows: 1 });
        expect(s.workerCount).toEqual({ import: 1, workbook: 0 });
      }
      expect(await count(id)).toBe(4);
      expect(await audits(id)).toHaveLength(3);
    } finally {
      await s.close();
    }
    expect(s.workerCount).toEqual({ import: 0, workbook: 0 });
  });

  it('a bad file ends the import worker; the next import starts fresh ones and stores everything', async () => {
    const { id } = await ensureList(store, 1, 'p31');
    const s = service({});
    try {
      await s.importFile(id, 'emails', 'a.csv', csv('ok1.csv', ['a1@x.example']), CLI_ACTOR);
      const bad = join(dir, 'bad.csv');
      writeFileSync(bad, 'email\r\n'); // a header alone
      expect((await failure(s.importFile(id, 'emails', 'bad.csv', bad, CLI_ACTOR))).status).toBe(400);
      await sleep(200);
      expect(s.workerCount).toEqual({ import: 0, workbook: 0 });
      expect(await s.importFile(id, 'emails', 'a.csv', csv('ok2.csv', ['a2@x.example', 'a1@x.example']), CLI_ACTOR)).toMatchObject({ newRows: 1, duplicatedRows: 1 });
      expect(s.workerCount).toEqual({ import: 1, workbook: 0 });
    } finally {
      await s.close();
    }
  });

  it('the parser that read a workbook is never kept (a crafted workbook dies with its thread); the import worker is', async () => {
    const { id } = await ensureList(store, 1, 'p32');
    const s = service({});
    try {
      expect(await s.importFile(id, 'emails', 'book.xlsx', workbook(), CLI_ACTOR)).toMatchObject({ newRows: 2 });
      await sleep(200);
      expect(s.workerCount).toEqual({ import: 1, workbook: 0 });
      expect(await s.importFile(id, 'emails', 'book.xlsx', workbook(), CLI_ACTOR)).toMatchObject({ newRows: 0, duplicatedRows: 2 });
      await sleep(200);
      expect(s.workerCount).toEqual({ import: 1, workbook: 0 });
    } finally {
      await s.close();
    }
  });

  it('through the portable bulk insert the import worker is kept too; after close an import is refused', async () => {
    const { id } = await ensureList(store, 1, 'p33');
    const s = service({}, 'collected');
    await s.importFile(id, 'emails', 'a.csv', csv('st1.csv', ['st1@x.example']), CLI_ACTOR);
    await s.importFile(id, 'emails', 'a.csv', csv('st2.csv', ['st2@x.example']), CLI_ACTOR);
    expect(s.workerCount).toEqual({ import: 1, workbook: 0 });
    await s.close();
    expect(s.workerCount).toEqual({ import: 0, workbook: 0 });
    await expect(s.importFile(id, 'emails', 'a.csv', csv('st3.csv', ['st3@x.example']), CLI_ACTOR)).rejects.toThrow(/closed/);
    expect(await count(id)).toBe(2);
  });
});

describe('insertMany ignoring conflicts (the import writer on the Store)', () => {
  it('inserts in chunks within the caller’s transaction and counts only new rows', async () => {
    const { id } = await ensureList(store, 1, 'p10');
    await store.transaction((tx) => tx.run('INSERT INTO optout_domains (list_id, domain, timestamp) VALUES (?, ?, 1)', [id, 'd5.example']));
    let chunks = 0;
    const rows = Array.from({ length: 11_000 }, (_, i) => [id, `d${i % 10_001}.example`, 2]); // 999 repeats, 1 stored before
    const inserted = await store.transaction((tx) => insertMany(tx, 'optout_domains', ['list_id', 'domain', 'timestamp'], rows, { ignoreConflicts: true, beforeChunk: () => chunks++ }));
    expect(inserted).toBe(10_000);
    expect(chunks).toBe(3); // 5,000 rows per statement
    expect(await store.value('SELECT timestamp FROM optout_domains WHERE list_id = ? AND domain = ?', [id, 'd5.example'])).toBe(1);
  });

  it('leaves nothing behind when a later chunk fails', async () => {
    const { id } = await ensureList(store, 1, 'p11');
    let chunks = 0;
    const rows = Array.from({ length: 12_000 }, (_, i) => [id, `d${i}.example`, 1]);
    const write = store.transaction((tx) =>
      insertMany(tx, 'optout_domains', ['list_id', 'domain', 'timestamp'], rows, {
        ignoreConflicts: true,
        beforeChunk: () => {
          if (++chunks === 3) throw new Error('the connection broke');
        },
      }),
    );
    await expect(write).rejects.toThrow('the connection broke');
    expect(await store.value('SELECT count(*) FROM optout_domains WHERE list_id = ?', [id])).toBe(0);
  });
});

describe('ImportService through the portable bulk insert (PostgreSQL’s)', () => {
  it('answers what the SQLite bulk insert answers, and audits the import in the same transaction', async () => {
    const viaStore = (await ensureList(store, 1, 'p20')).id;
    const viaWorker = (await ensureList(store, 1, 'p21')).id;
    const a = await service({}, 'collected').importFile(viaStore, 'emails', 'mixed.csv', mixed, CLI_ACTOR);
    const b = await service({}, 'own').importFile(viaWorker, 'emails', 'mixed.csv', mixed, CLI_ACTOR);
    expect(a).toEqual(b);
    expect(a).toMatchObject({ newRows: 9_000, duplicatedRows: 3_000, invalidRows: 3 });
    expect(a.invalidItems.map((i) => i.row)).toEqual([12_001, 12_002, 12_003]);
    expect(await count(viaStore)).toBe(9_000);
    expect(await store.value('SELECT count(*) FROM optout_emails WHERE list_id = ? AND email_address = ?', [viaStore, 'u7@x.example'])).toBe(0);
    expect((await audits(viaStore)).map((c) => JSON.parse(c) as unknown)).toEqual([
      { listId: viaStore, kind: 'emails', newRows: 9_000, duplicatedRows: 3_000, invalidRows: 3 },
    ]);
    // Again: everything is a duplicate now.
    expect(await service({}, 'collected').importFile(viaStore, 'emails', 'mixed.csv', mixed, CLI_ACTOR)).toMatchObject({ newRows: 0, duplicatedRows: 12_000 });
  });

  it('a list deleted meanwhile → 404, nothing stored', async () => {
    const err = await failure(service({}, 'collected').importFile(987_654, 'emails', 'mixed.csv', mixed, CLI_ACTOR));
    expect(err.status).toBe(404);
    expect(await count(987_654)).toBe(0);
  });

  it('a write past its time limit is rolled back whole', async () => {
    const { id } = await ensureList(store, 1, 'p22');
    const err = await failure(service({ writeTimeoutMs: -1 }, 'collected').importFile(id, 'emails', 'mixed.csv', mixed, CLI_ACTOR));
    expect(err.status).toBe(500);
    expect(err.message).toMatch(/nothing was stored/);
    expect(await count(id)).toBe(0);
    expect(await audits(id)).toEqual([]);
  });

  it('the read time limit still stops the parser before anything is written', async () => {
    const { id } = await ensureList(store, 1, 'p23');
    const err = await failure(service({ parseTimeoutMs: 1 }, 'collected').importFile(id, 'emails', 'mixed.csv', mixed, CLI_ACTOR));
    expect(err.status).toBe(413);
    expect(await count(id)).toBe(0);
  });
});

describe('ImportService through SQLite’s bulk insert (staged on the import worker’s own connection)', () => {
  it('a list deleted meanwhile → 404, nothing stored', async () => {
    const err = await failure(service({}).importFile(987_656, 'emails', 'mixed.csv', mixed, CLI_ACTOR));
    expect(err.status).toBe(404);
    expect(await count(987_656)).toBe(0);
  });

  it('a write that fails on one row stores nothing and audits nothing; the next import writes', async () => {
    const { id } = await ensureList(store, 1, 'p24');
    const boom = join(dir, 'boom.csv');
    writeFileSync(boom, [...Array.from({ length: 9000 }, (_, i) => `b${i}@x.example`), 'zz-boom@x.example'].join('\n'));
    await store.exec("CREATE TRIGGER bulk_boom BEFORE INSERT ON optout_emails WHEN NEW.email_address = 'zz-boom@x.example' BEGIN SELECT RAISE(ABORT, 'injected'); END");
    const s = service({});
    try {
      const err = await failure(s.importFile(id, 'emails', 'boom.csv', boom, CLI_ACTOR));
      expect(err.status).toBe(500);
      expect(err.message).toMatch(/nothing was stored/);
      expect(await count(id)).toBe(0);
      expect(await audits(id)).toEqual([]);
      await store.exec('DROP TRIGGER bulk_boom');
      expect(await s.importFile(id, 'emails', 'boom.csv', boom, CLI_ACTOR)).toMatchObject({ newRows: 9001 });
      expect(await audits(id)).toHaveLength(1);
    } finally {
      await store.exec('DROP TRIGGER IF EXISTS bulk_boom');
      await s.close();
    }
  });
});

describe('the import workers', () => {
  const optout = join(import.meta.dirname, '..', '..', 'server', 'optout');
  it('the parse worker (which runs the xlsx library on untrusted files) loads no database module', () => {
    const { files, packages } = moduleClosure(join(optout, 'import-parse-worker.ts'));
    expect(packages).toContain('xlsx');
    expect(packages).not.toContain('better-sqlite3');
    expect(files.filter((f) => /[\\/]db[\\/]/.test(f))).toEqual([]);
  });

  it('the import worker (which holds a database connection on SQLite) never loads the xlsx library', () => {
    const { files, packages } = moduleClosure(join(optout, 'import-worker.ts'));
    expect(files.some((f) => /[\\/]db[\\/]native-binding\.ts$/.test(f))).toBe(true); // opens SQLite (better-sqlite3 12 or 13)
    expect(packages).not.toContain('xlsx');
    expect(files.some((f) => f.endsWith('import-xlsx.ts') || f.endsWith('import-parse-worker.ts'))).toBe(false);
  });
});

describe('small text imports on the main thread (a small import under load)', () => {
  const write = (name: string, rows: string[]) => {
    const f = join(dir, name);
    writeFileSync(f, rows.join('\n'));
    return f;
  };
  // 1,500 valid rows (every 5th repeats the one before), a header and 2 invalid ones: ~30 KB, under the limit.
  const rows = ['Email', ...Array.from({ length: 1500 }, (_, i) => `In${i % 5 === 4 ? i - 1 : i}@X.example`), 'no-at-sign', 'b@'];

  it('answers and audits what the workers answer, and starts no thread', async () => {
    const inline = (await ensureList(store, 1, 'p40')).id;
    const viaWorkers = (await ensureList(store, 1, 'p41')).id;
    const small = write('inline.csv', rows);
    const s = service({ inlineBytes: 64 * 1024 });
    const w = service({});
    try {
      const a = await s.importFile(inline, 'emails', 'inline.csv', small, CLI_ACTOR);
      const b = await w.importFile(viaWorkers, 'emails', 'inline.csv', small, CLI_ACTOR);
      expect(a).toEqual(b);
      expect(a).toMatchObject({ newRows: 1200, duplicatedRows: 300, invalidRows: 2 });
      expect(s.workerCount).toEqual({ import: 0, workbook: 0 });
      expect(await count(inline)).toBe(1200);
      expect((await audits(inline)).map((c) => JSON.parse(c) as unknown)).toEqual([{ listId: inline, kind: 'emails', newRows: 1200, duplicatedRows: 300, invalidRows: 2 }]);
      // Over the limit, the same file goes to the workers.
      await service({ inlineBytes: 1024 }).importFile(inline, 'emails', 'inline.csv', small, CLI_ACTOR).then((r) => expect(r.newRows).toBe(0));
    } finally {
      await s.close();
      await w.close();
    }
  });

  it('a bad file → 400 and a deleted list → 404, nothing stored', async () => {
    const { id } = await ensureList(store, 1, 'p42');
    const s = service({ inlineBytes: 64 * 1024 });
    const headerOnly = join(dir, 'header-only.csv');
    writeFileSync(headerOnly, 'email\n\n');
    expect((await failure(s.importFile(id, 'emails', 'header-only.csv', headerOnly, CLI_ACTOR))).status).toBe(400);
    expect((await failure(s.importFile(987_655, 'emails', 'inline.csv', write('gone.csv', rows), CLI_ACTOR))).status).toBe(404);
    expect(await count(id)).toBe(0);
    await s.close();
  });

  it('waits for another connection’s write lock without holding the event loop', async () => {
    const { id } = await ensureList(store, 1, 'p43');
    const s = service({ inlineBytes: 64 * 1024 });
    const holder = openDatabase(join(dir, 'cati.sqlite'), { migrate: false });
    holder.exec('BEGIN IMMEDIATE');
    try {
      let done = false;
      const importing = s.importFile(id, 'emails', 'inline.csv', write('locked.csv', rows), CLI_ACTOR).finally(() => (done = true));
      let ticks = 0;
      for (let i = 0; i < 20; i++) await sleep(10).then(() => ticks++);
      expect(ticks).toBe(20);
      expect(done).toBe(false);
      holder.exec('COMMIT');
      expect((await importing).newRows).toBe(1200);
    } finally {
      if (holder.inTransaction) holder.exec('ROLLBACK');
      holder.close();
      await s.close();
    }
  });
});
