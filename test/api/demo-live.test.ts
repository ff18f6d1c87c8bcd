import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT } from '../helpers/cli-server.ts';
import { dataOf, openEvents } from '../helpers/sse.ts';

const KEY = 'demo-live-test-key-0123456789';
let dataDir: string;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'cati-live-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('npm run serve -- --demo --demo-live', () => {
  it('a simulated dialer moves the floor through the ingest routes (calls opened, then closed by PATCH) and stops with the server', async () => {
    const child = spawn(process.execPath, [...CLI, 'serve', '--port', '0', '--data-dir', dataDir, '--demo', '--demo-live'], {
      cwd: ROOT,
      env: { ...process.env, CATI_API_KEY: KEY },
    });
    try {
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      const first = (await lines.next()).value as string;
      expect(first).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
      const url = first.slice('listening on '.length);
      const floor = await (await fetch(`${url}/cati/floor?$count=true&$top=0`, { headers: { authorization: `Bearer ${KEY}` } })).json();
      expect(floor['@odata.count']).toBeGreaterThan(10);

      const stream = await openEvents(url, KEY);
      const opened = dataOf(await stream.waitFor((e) => e.event === 'call' && dataOf(e).action === 'opened', { timeoutMs: 60_000 }));
      expect(opened).toMatchObject({ Duration: null });
      const closed = dataOf(await stream.waitFor((e) => e.event === 'call' && dataOf(e).action === 'closed', { timeoutMs: 60_000 }));
      expect(closed.Duration).toEqual(expect.any(Number));
      stream.close();

      child.kill('SIGTERM');
      const code = await new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 120_000);

  it('--stale-session-hours must be a positive number of hours', () => {
    for (const bad of ['0', '-1', 'soon']) {
      const r = spawnSync(process.execPath, [...CLI, 'serve', '--port', '0', '--data-dir', dataDir, '--stale-session-hours', bad], { encoding: 'utf8', cwd: ROOT });
      expect(r.status, bad).toBe(2);
      expect(r.stderr).toMatch(/--stale-session-hours/);
    }
  });
});
