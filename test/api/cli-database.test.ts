/**
 * docs/people.md#keys: the key CLI (and backup) open the database of the server running on their data dir, as
 * `<data-dir>/server.lock` names it (never with a password); never a silent write to a SQLite file no server
 * reads. A real `serve` process on PostgreSQL; runs in the `postgres` project.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, serveProcess, type ServeProcess } from '../helpers/cli-server.ts';
import { testEngine } from '../helpers/engine.ts';
import { freshPgDatabase } from '../helpers/postgres.ts';

const KEY = 'cli-db-key-0123456789abcdef';

function run(command: string, dataDir: string, args: string[], env: Record<string, string> = {}) {
  const cleanEnv = { ...process.env, ...env };
  if (!('CATI_DATABASE_URL' in env)) delete cleanEnv.CATI_DATABASE_URL;
  const r = spawnSync(process.execPath, [...CLI, command, '--data-dir', dataDir, ...args], { encoding: 'utf8', cwd: ROOT, env: cleanEnv });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, lastLine: r.stdout.trim().split('\n').at(-1) ?? '' };
}

async function serve(dataDir: string, database: string): Promise<{ proc: ServeProcess; url: string }> {
  const proc = serveProcess(dataDir, ['--database', database], { CATI_API_KEY: KEY });
  const line = await proc.first;
  return { proc, url: line.slice('listening on '.length) };
}

describe.skipIf(testEngine() !== 'postgres')('the key CLI and backup on a data dir whose server runs on PostgreSQL', () => {
  let database: string;
  const dirs: string[] = [];
  const procs: ServeProcess[] = [];
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), 'cati-cli-db-'));
    dirs.push(d);
    return d;
  };
  beforeAll(async () => {
    database = await freshPgDatabase();
  });
  afterAll(async () => {
    for (const p of procs) {
      p.child.kill('SIGTERM');
      await p.exitCode();
    }
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('keys create writes into the server\'s PostgreSQL database: the key works at once; list and revoke too', async () => {
    const dataDir = dir();
    const { proc, url } = await serve(dataDir, database);
    procs.push(proc);
    const lock = JSON.parse(readFileSync(join(dataDir, 'server.lock'), 'utf8'));
    expect(lock.database).toBe(database);
    const created = run('keys', dataDir, ['create', '--name', 'excel', '--permissions', 'cati_read']);
    expect(created.status, created.stderr).toBe(0);
    const res = await fetch(`${url}/cati/blacklist`, { headers: { authorization: `Bearer ${created.lastLine}` } });
    expect(res.status).toBe(200);
    expect(existsSync(join(dataDir, 'cati.sqlite'))).toBe(false);
    const listed = run('keys', dataDir, ['list', '--json']);
    const id = JSON.parse(listed.stdout).find((k: { name: string }) => k.name === 'excel').id;
    expect(run('keys', dataDir, ['revoke', String(id)]).status).toBe(0);
    expect((await fetch(`${url}/cati/blacklist`, { headers: { authorization: `Bearer ${created.lastLine}` } })).status).toBe(401);
    // backup: the server's database is PostgreSQL, so there is nothing of ours to copy.
    const backup = run('backup', dataDir, []);
    expect(backup.status).not.toBe(0);
    expect(backup.stderr).toMatch(/uses postgres:\/\/.*pg_dump/);
    // --database naming another database than the running server's → refused.
    const other = run('keys', dataDir, ['--database', 'sqlite:', 'list']);
    expect(other.status).not.toBe(0);
    expect(other.stderr).toMatch(/--database or CATI_DATABASE_URL/);
  }, 180_000);

  it('when the server\'s URL had a password, server.lock leaves it out and the CLI asks for --database in one line', async () => {
    const dataDir = dir();
    const u = new URL(database);
    u.password = 'not-written-anywhere';
    const withPassword = u.toString();
    const { proc, url } = await serve(dataDir, withPassword);
    procs.push(proc);
    const lockText = readFileSync(join(dataDir, 'server.lock'), 'utf8');
    expect(lockText).not.toMatch(/not-written-anywhere/);
    const refused = run('keys', dataDir, ['create', '--name', 'r', '--permissions', 'cati_read']);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/--database or CATI_DATABASE_URL/);
    expect(existsSync(join(dataDir, 'cati.sqlite'))).toBe(false);
    const created = run('keys', dataDir, ['create', '--name', 'r', '--permissions', 'cati_read'], { CATI_DATABASE_URL: withPassword });
    expect(created.status, created.stderr).toBe(0);
    expect((await fetch(`${url}/cati/`, { headers: { authorization: `Bearer ${created.lastLine}` } })).status).toBe(200);
  }, 120_000);
});
