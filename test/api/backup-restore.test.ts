import { newSqliteDatabase } from '../../server/db/native-binding.ts';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeSqliteOnly } from '../helpers/engine.ts';
import { CLI, ROOT } from '../helpers/cli-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let dir: string;
let dataDir: string;

/** Runs `cli.ts <command> …` to completion without blocking the event loop (the server in this process keeps serving). */
function cli(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const numbers = (t: TestServer) => t.json('GET', '/cati/blacklist?$top=1000').then((r) => r.body.value.map((v: { TelephoneNumber: string }) => v.TelephoneNumber).sort());
const add = (t: TestServer, n: string) => t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: n, Type: 'Equal' } });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cati-backup-'));
  dataDir = join(dir, 'data');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// SQLite only by nature: the backup is a copy of the SQLite file (PostgreSQL has its own tools, docs/deployment.md#postgresql).
describeSqliteOnly('npm run backup / npm run restore (docs/deployment.md#backups)', () => {
  const backup = () => join(dir, 'one.sqlite');

  it('backs up a running server’s database while writes keep going, verified, and audits it', async () => {
    const t = await startTestServer({ dataDir });
    try {
      for (const n of ['0201111', '0202222']) expect((await add(t, n)).status).toBe(201);
      let writing = true;
      const statuses: number[] = [];
      const writer = (async () => {
        for (let i = 0; writing && i < 2000; i++) statuses.push((await add(t, `0309${String(i).padStart(5, '0')}`)).status);
      })();
      const r = await cli('backup', '--data-dir', dataDir, '--to', backup());
      writing = false;
      await writer;
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/verified \(integrity_check ok, \d+ migrations, [\d.]+ MB\):/);
      expect(r.stdout.trim().split('\n').at(-1)).toBe(backup());
      expect(statuses.length).toBeGreaterThan(0);
      expect(statuses.every((s) => s === 201)).toBe(true); // no write was refused or delayed into a failure
      expect(existsSync(`${backup()}.partial`)).toBe(false);

      const copy = newSqliteDatabase(backup(), { readonly: true });
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      const copied = copy.prepare('SELECT telephone_number FROM blacklist').pluck().all();
      copy.close();
      expect(copied).toEqual(expect.arrayContaining(['0201111', '0202222']));
      const audit = (await t.server.ctx.store.get<Record<string, string>>("SELECT actor, action, entity, changes FROM audit_log WHERE action = 'backup'"))!;
      expect(audit).toMatchObject({ actor: 'cli', action: 'backup', entity: 'settings' });
      expect(JSON.parse(audit.changes!).file).toBe(backup());

      // Restore refuses while this server runs on the data dir, and replaces nothing.
      await add(t, '0405555');
      const refused = await cli('restore', '--data-dir', dataDir, '--from', backup());
      expect(refused.status).toBe(2);
      expect(refused.stderr).toMatch(/^Restore refused, nothing was replaced: The data dir .* is in use by a running server \(pid \d+, http:\/\/127\.0\.0\.1:\d+\): stop it first/);
      expect(await numbers(t)).toContain('0405555');
      expect(readdirSync(dataDir).some((f) => f.includes('before-restore'))).toBe(false);

      const again = await cli('backup', '--data-dir', dataDir, '--to', backup());
      expect(again.status).toBe(2);
      expect(again.stderr).toMatch(/already exists/);
    } finally {
      await t.close();
    }
  });

  it('refuses a file that is not our database, and replaces nothing', async () => {
    const before = sha(join(dataDir, 'cati.sqlite'));
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'not a database at all, but long enough to have a header');
    const foreign = join(dir, 'foreign.sqlite');
    const other = newSqliteDatabase(foreign);
    other.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1)');
    other.close();
    const newer = join(dir, 'newer.sqlite');
    writeFileSync(newer, readFileSync(backup()));
    const n = newSqliteDatabase(newer);
    n.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (999, ?, ?)').run('999-future.sql', Date.now());
    n.close();

    for (const [file, reason] of [
      [newer, /made by a newer CATI Supervisor \(migration 999 is unknown here\)/],
      [text, /not an SQLite file/],
      [foreign, /no schema_migrations table/],
      [join(dir, 'missing.sqlite'), /does not exist/],
    ] as const) {
      const r = await cli('restore', '--data-dir', dataDir, '--from', file);
      expect(r.status, file).toBe(2);
      expect(r.stderr).toMatch(/^Restore refused, nothing was replaced: /);
      expect(r.stderr).toMatch(reason);
    }
    expect(sha(join(dataDir, 'cati.sqlite'))).toBe(before);
    expect(readdirSync(dataDir).filter((f) => f.includes('before-restore') || f.includes('restoring'))).toEqual([]);
  });

  it('refuses a PostgreSQL database (--database postgres://…): its backups are pg_dump’s, and nothing is touched', async () => {
    const before = sha(join(dataDir, 'cati.sqlite'));
    for (const args of [['backup', '--to', join(dir, 'pg.sqlite')], ['restore', '--from', backup()]]) {
      const r = await cli(...args, '--data-dir', dataDir, '--database', 'postgres://cati@127.0.0.1:1/cati');
      expect(r.status, args[0]).toBe(2);
      expect(r.stderr).toMatch(/PostgreSQL database are made with PostgreSQL’s own tools \(pg_dump/);
    }
    expect(existsSync(join(dir, 'pg.sqlite'))).toBe(false);
    expect(sha(join(dataDir, 'cati.sqlite'))).toBe(before);
  });

  it('restores with the server stopped, keeping the replaced database, and audits it in the restored one', async () => {
    writeFileSync(join(dataDir, 'server.lock'), JSON.stringify({ pid: 2 ** 22 + 12345, host: (await import('node:os')).hostname(), url: 'http://127.0.0.1:1', startedAt: '' }));
    const r = await cli('restore', '--data-dir', dataDir, '--from', backup());
    expect(r.status, r.stderr).toBe(0); // a lock of a dead process does not block
    const kept = readdirSync(dataDir).filter((f) => f.startsWith('cati.sqlite.before-restore-'));
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatch(/^cati\.sqlite\.before-restore-\d{8}T\d{6}Z$/);
    expect(r.stdout).toContain(`the replaced database is kept as ${join(dataDir, kept[0]!)}`);

    const keptDb = newSqliteDatabase(join(dataDir, kept[0]!), { readonly: true });
    expect(keptDb.prepare("SELECT count(*) FROM blacklist WHERE telephone_number = '0405555'").pluck().get()).toBe(1);
    keptDb.close();

    const t = await startTestServer({ dataDir });
    try {
      const restored = await numbers(t);
      expect(restored).toEqual(expect.arrayContaining(['0201111', '0202222']));
      expect(restored).not.toContain('0405555');
      const audit = (await t.server.ctx.store.get<Record<string, string>>("SELECT actor, entity, changes FROM audit_log WHERE action = 'restore'"))!;
      expect(audit).toMatchObject({ actor: 'cli', entity: 'settings' });
      expect(JSON.parse(audit.changes!)).toEqual({ from: backup(), kept: kept[0] });
    } finally {
      await t.close();
    }
  });
});
