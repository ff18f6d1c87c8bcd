import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dataDir = mkdtempSync(join(tmpdir(), 'cati-built-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

// What Electron loads is the tsc output, not the TypeScript sources: this runs it under plain Node (no tsx).
const SMOKE = `
const { startServer } = await import(${JSON.stringify(join(ROOT, 'dist/server/server.js'))});
const { defaultConfig } = await import(${JSON.stringify(join(ROOT, 'dist/server/config.js'))});
const key = 'smoke-key-0123456789';
const s = await startServer(defaultConfig({ port: 0, dataDir: ${JSON.stringify(dataDir)}, apiKey: key }));
const auth = { Authorization: 'Bearer ' + key };
const list = await (await fetch(s.url + '/optout/lists', { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: '{}' })).json();
const form = new FormData();
form.append('file', new Blob(['email\\na@example.com\\nb@example.com\\n']), 'list.csv');
const imported = await (await fetch(s.url + '/optout/lists/' + list.id + '/emails/import', { method: 'POST', headers: auth, body: form })).json();
const blacklist = await fetch(s.url + '/cati/blacklist', { headers: auth });
const applied = await (await fetch(s.url + '/cati/interviewers?$apply=' + encodeURIComponent('aggregate($count as N)'), { headers: auth })).json();
// Modules the server loads with their first request (metadata, exports, scrubs): they must resolve in the build too.
const metadata = await fetch(s.url + '/cati/$metadata', { headers: auth });
const csv = await fetch(s.url + '/cati/interviewers?$format=csv', { headers: auth });
const scrubs = await (await fetch(s.url + '/cati/scrubs', { headers: auth })).json();
const lazy = [metadata.status, (await metadata.text()).includes('<edmx:Edmx'), csv.status, (await csv.text()).length > 0, scrubs.value];
console.log(JSON.stringify({ imported, blacklist: blacklist.status, applied: applied.value, lazy }));
await s.close();
`;

/** `mainBuildIsFresh(dir)` of scripts/main-build-state.mjs, run in a child (the script is plain JavaScript). */
function isFresh(dir: string): boolean {
  const code = `import { mainBuildIsFresh } from ${JSON.stringify(join(ROOT, 'scripts/main-build-state.mjs'))}; console.log(mainBuildIsFresh(${JSON.stringify(dir)}))`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as boolean;
}

describe('npm run build:main', () => {
  // The tests of this file are the only ones that build or run dist/main and dist/server (the others that start
  // `npm run serve` or the launcher's headless server set CATI_SERVE_FROM=sources), so the build cannot pull
  // the compiled server from under another test.
  let build: SpawnSyncReturns<string>;
  beforeAll(() => {
    build = spawnSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT, encoding: 'utf8' });
  }, 120_000);

  it('compiles main/ and the server so that the server runs under plain Node, import and read workers included', { timeout: 120_000 }, () => {
    expect(build.status, build.stdout + build.stderr).toBe(0);
    for (const file of ['dist/main/main.js', 'dist/main/preload.cjs', 'dist/server/db/migrations/001-core.sql']) {
      expect(existsSync(join(ROOT, file)), file).toBe(true);
    }

    const script = join(dataDir, 'smoke.mjs'); // a file, not -e: worker threads inherit execArgv
    writeFileSync(script, SMOKE);
    const run = spawnSync(process.execPath, [script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1)!), run.stderr).toEqual({
      imported: { newRows: 2, duplicatedRows: 0, invalidRows: 0, Encoding: 'utf-8' },
      blacklist: 200,
      applied: [{ N: 0 }], // $apply runs on the read worker (server/db/sqlite/read-pool.ts)
      lazy: [200, true, 200, true, []],
    });
  });

  it('is what `npm run serve` runs once built (scripts/serve.mjs), the UI from dist/renderer included', { timeout: 60_000 }, async () => {
    expect(build.status, build.stdout + build.stderr).toBe(0);
    expect(isFresh(ROOT)).toBe(true);
    const child = spawn(process.execPath, [join(ROOT, 'scripts/serve.mjs'), '--port', '0', '--data-dir', join(dataDir, 'serve')], { cwd: ROOT, env: { ...process.env, CATI_SERVE_FROM: '' } });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`serve.mjs exited ${code}`)));
      });
      expect(line).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
      const url = line.slice('listening on '.length);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      // The compiled cli.js finds the project from package.json (dist/server/.. is dist/, which has none).
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="app"');
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe('whether dist/ is as new as its sources (scripts/main-build-state.mjs)', () => {
  it('is fresh only with dist/main/main.js at least as new as every file and directory of main/ and server/, and scripts/build-main.mjs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cati-fresh-'));
    try {
      // Writes the file and dates it and its directories (which count too) `seconds` after 1970.
      const file = (path: string, seconds: number) => {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), '');
        for (let p = join(dir, path); p !== dir; p = dirname(p)) utimesSync(p, seconds, seconds);
      };
      file('main/main.ts', 1_000);
      file('server/db/open.ts', 1_000);
      file('scripts/build-main.mjs', 1_000);
      expect(isFresh(dir)).toBe(false); // never built
      file('dist/main/main.js', 2_000);
      expect(isFresh(dir)).toBe(true);
      file('server/db/migrations/099-new.sql', 3_000); // a file deep in server/
      expect(isFresh(dir)).toBe(false);
      file('dist/main/main.js', 3_000);
      expect(isFresh(dir)).toBe(true);
      file('scripts/build-main.mjs', 4_000);
      expect(isFresh(dir)).toBe(false);
      file('dist/main/main.js', 5_000);
      expect(isFresh(dir)).toBe(true);
      rmSync(join(dir, 'server/db/migrations/099-new.sql')); // a file taken out: its directory is newer than the build
      expect(isFresh(dir)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
