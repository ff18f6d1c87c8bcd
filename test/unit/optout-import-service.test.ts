import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ACTOR } from '../../server/audit/audit-log.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';
import { ApiError } from '../../server/errors.ts';
import { DEFAULT_IMPORT_LIMITS, ImportService, type ImportWritePath } from '../../server/optout/import-service.ts';
import { ensureList } from '../../server/optout/lists.ts';
import { moduleClosure } from '../helpers/module-closure.ts';

let dir: string;
let store: SqliteStore;
let listId: number;
let file: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'optout-import-service-'));
  store = SqliteStore.open(join(dir, 'cati.sqlite'));
  listId = (await ensureList(store, 1, 'p1')).id;
  file = join(dir, 'rows.csv');
  writeFileSync(file, Array.from({ length: 50_000 }, (_, i) => `u${i}@x.example`).join('\n'));
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const service = (limits: Partial<typeof DEFAULT_IMPORT_LIMITS>, path?: ImportWritePath) =>
  new ImportService({ store, dbFile: join(dir, 'cati.sqlite') }, { ...DEFAULT_IMPORT_LIMITS, ...limits }, path);
const count = () => store.value<number>('SELECT count(*) FROM optout_emails');

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
    const s = service({ maxConcurrent: 1, maxWaiting: 1 });
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
        { newRows: 50_000, duplicatedRows: 0, invalidRows: 0, invalidItems: [] },
        { newRows: 0, duplicatedRows: 50_000, invalidRows: 0, invalidItems: [] },
      ]),
    );
  });
});

describe('the two import workers', () => {
  const optout = join(import.meta.dirname, '..', '..', 'server', 'optout');
  it('the parse worker (which runs the xlsx library on untrusted files) loads no database module', () => {
    const { files, packages } = moduleClosure(join(optout, 'import-parse-worker.ts'));
    expect(packages).toContain('xlsx');
    expect(packages).not.toContain('better-sqlite3');
    expect(files.filter((f) => /[\\/]db[\\/]/.test(f))).toEqual([]);
  });

  it('the write worker never loads the file readers', () => {
    const { files, packages } = moduleClosure(join(optout, 'import-worker.ts'));
    expect(packages).toContain('better-sqlite3');
    expect(packages).not.toContain('xlsx');
    expect(files.some((f) => f.endsWith('import-xlsx.ts') || f.endsWith('import-parse.ts'))).toBe(false);
  });
});
