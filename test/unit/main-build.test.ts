import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

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

describe('npm run build:main', () => {
  it('compiles main/ and the server so that the server runs under plain Node, import and read workers included', { timeout: 120_000 }, () => {
    const build = spawnSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT, encoding: 'utf8' });
    expect(build.status, build.stdout + build.stderr).toBe(0);
    for (const file of ['dist/main/main.js', 'dist/main/preload.cjs', 'dist/server/db/migrations/001-core.sql']) {
      expect(existsSync(join(ROOT, file)), file).toBe(true);
    }

    const script = join(dataDir, 'smoke.mjs'); // a file, not -e: worker threads inherit execArgv
    writeFileSync(script, SMOKE);
    const run = spawnSync(process.execPath, [script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1)!), run.stderr).toEqual({
      imported: { newRows: 2, duplicatedRows: 0, invalidRows: 0 },
      blacklist: 200,
      applied: [{ N: 0 }], // $apply runs on the read worker (server/db/sqlite/read-pool.ts)
      lazy: [200, true, 200, true, []],
    });
  });
});
