import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { siblingModule, startModuleWorker } from '../../server/db/start-worker.ts';
import type { FromWorker, ScrubParseJob } from '../../server/scrub/scrub-protocol.ts';

// server/db/start-worker.ts: a worker of a TypeScript run starts through tsx, or from CATI_WORKER_BUILD's compiled twin.

const dir = mkdtempSync(join(tmpdir(), 'cati-start-worker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'numbers.csv');
writeFileSync(file, 'Phone\n0612345678\n');
const ENTRY = siblingModule('scrub-parse-worker', new URL('../../server/scrub/scrub-runner.ts', import.meta.url).href);

/** Starts the scrub's parse worker on the file with `build` as CATI_WORKER_BUILD (undefined: none); answers its first message. */
async function firstMessage(build: string | undefined): Promise<FromWorker> {
  const before = process.env.CATI_WORKER_BUILD;
  if (build === undefined) delete process.env.CATI_WORKER_BUILD;
  else process.env.CATI_WORKER_BUILD = build;
  try {
    const workerData: ScrubParseJob = { filePath: file, format: 'text', kind: 'phone', region: null, maxRows: 10, headRows: 5 };
    const worker = startModuleWorker(ENTRY, { workerData });
    try {
      return await new Promise<FromWorker>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
    } finally {
      await worker.terminate();
    }
  } finally {
    if (before === undefined) delete process.env.CATI_WORKER_BUILD;
    else process.env.CATI_WORKER_BUILD = before;
  }
}

describe('startModuleWorker', () => {
  it('starts a .ts entry through tsx, and from the compiled copy when CATI_WORKER_BUILD names one, with the same answer', async () => {
    const expected = { type: 'head', rows: [['Phone'], ['0612345678']], encoding: 'utf-8' };
    expect(await firstMessage(undefined)).toEqual(expected);
    const build = process.env.CATI_WORKER_BUILD;
    expect(build, 'test/setup/worker-build.ts sets it').toBeTruthy();
    expect(await firstMessage(build)).toEqual(expected);
  });

  it('fails the worker, not the caller, when the compiled copy lacks the module', async () => {
    await expect(firstMessage(dir)).rejects.toThrow(/Cannot find module/);
  });
});
