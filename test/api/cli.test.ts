import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, serveProcess } from '../helpers/cli-server.ts';
let dataDir: string;

/** Runs `cli.ts keys …` to completion. */
function keys(...args: string[]) {
  const r = spawnSync(process.execPath, [...CLI, 'keys', '--data-dir', dataDir, ...args], { encoding: 'utf8', cwd: ROOT });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, lastLine: r.stdout.trim().split('\n').at(-1) ?? '' };
}

/** Starts `cli.ts serve` on this file's data dir. */
const serve = (extra: string[] = [], env: Record<string, string> = {}) => serveProcess(dataDir, extra, env);

const exitCode = (child: ChildProcessWithoutNullStreams) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'cati-cli-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('npm run serve', () => {
  it('prints exactly `listening on http://HOST:PORT` first, serves /healthz, and exits 0 on SIGTERM', async () => {
    const { child, first } = serve();
    const line = await first;
    expect(line).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = line.slice('listening on '.length);
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    child.kill('SIGTERM');
    expect(await exitCode(child)).toBe(0);
  });

  it('accepts CATI_API_KEY for this run and prints a UI link whose token works once, and only for a session key', async () => {
    const key = 'ci-key-abcdefghijklmnop';
    const { child, first, nextLine, output } = serve([], { CATI_API_KEY: key });
    const url = (await first).slice('listening on '.length);
    const link = await nextLine();
    expect(link).toMatch(new RegExp(`^open the UI: ${url.replace(/\./g, '\\.')}/#token=uit_[A-Za-z0-9_-]{43}$`));
    const token = link.split('#token=')[1]!;
    expect((await fetch(`${url}/cati/nowhere`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    const exchange = () =>
      fetch(`${url}/auth/ui-token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
    const first_ = await exchange();
    expect(first_.status).toBe(201);
    const { key: sessionKey } = (await first_.json()) as { key: string };
    expect((await exchange()).status).toBe(401); // a copied log line is useless now
    for (const k of [key, sessionKey]) {
      const r = await fetch(`${url}/cati/nowhere`, { headers: { authorization: `Bearer ${k}` } });
      expect(r.status).toBe(404); // authenticated: past the 401
    }
    const anon = await fetch(`${url}/cati/nowhere`);
    expect(anon.status).toBe(401);
    const wrong = await fetch(`${url}/cati/`, { headers: { authorization: `Bearer ${sessionKey}x` } });
    expect(wrong.status).toBe(401);
    child.kill('SIGINT');
    expect(await exitCode(child)).toBe(0);
    // No key is ever printed in reusable form: only the used-up token appears in the server's output.
    for (const secret of [key, sessionKey, `${sessionKey}x`]) expect(output.text).not.toContain(secret);
    expect(output.text).toContain(token);
  });

  it('`keys ui-link` prints a fresh link for the running server, and says so when none runs', async () => {
    const none = keys('ui-link');
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/No server is running on .*npm run serve/);

    const { child, first } = serve();
    const url = (await first).slice('listening on '.length);
    const minted = keys('ui-link');
    expect(minted.status, minted.stderr).toBe(0);
    expect(minted.lastLine).toMatch(new RegExp(`^${url.replace(/\./g, '\\.')}/#token=uit_`));
    const token = minted.lastLine.split('#token=')[1]!;
    const r = await fetch(`${url}/auth/ui-token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
    expect(r.status).toBe(201);
    child.kill('SIGTERM');
    expect(await exitCode(child)).toBe(0);
    expect(keys('ui-link').status).toBe(2); // the lock went with the server
  });

  it('through `npm run serve` itself: SIGTERM to the npm process stops the server and npm exits 0', async () => {
    if (process.platform === 'win32') return; // the script's `exec` is for POSIX shells
    // From the sources: dist/ is main-build.test.ts's to rebuild meanwhile (it runs the compiled `npm run serve`).
    const child = spawn('npm', ['run', '-s', 'serve', '--', '--port', '0', '--data-dir', dataDir], { cwd: ROOT, env: { ...process.env, CATI_SERVE_FROM: 'sources' } });
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`npm run serve exited ${code}`)));
    });
    expect(line).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = line.slice('listening on '.length);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    child.kill('SIGTERM');
    expect(await exitCode(child)).toBe(0);
    // The server went down with npm: nothing is left listening (no orphaned node behind a shell).
    await expect(fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
  }, 30_000);

  it('refuses a CATI_API_KEY shorter than 16 characters', () => {
    const r = spawnSync(process.execPath, [...CLI, 'serve', '--port', '0', '--data-dir', dataDir], {
      cwd: ROOT,
      env: { ...process.env, CATI_API_KEY: 'short' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('at least 16 characters');
  });

  it('ends with one line on stderr and a non-zero exit when the --database (or CATI_DATABASE_URL) cannot be reached; a malformed URL exits 2', () => {
    const run = (extra: string[], env: Record<string, string> = {}) =>
      spawnSync(process.execPath, [...CLI, 'serve', '--port', '0', '--data-dir', dataDir, ...extra], {
        cwd: ROOT,
        env: { ...process.env, ...env },
        encoding: 'utf8',
        timeout: 60_000,
      });
    // Nothing listens on port 1: the database is unreachable.
    for (const r of [run(['--database', 'postgres://cati:secret@127.0.0.1:1/x']), run([], { CATI_DATABASE_URL: 'postgres://cati:secret@127.0.0.1:1/x' })]) {
      expect(r.status).not.toBe(0);
      expect(r.status).not.toBeNull(); // it ended by itself, not by the timeout
      expect(r.stdout).not.toContain('listening on');
      const lines = r.stderr.trim().split('\n');
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/database/i);
      expect(r.stderr).not.toContain('secret'); // the password is never echoed
    }
    const bad = run(['--database', 'mysql://127.0.0.1/x']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--database');
  });

  it('--unsubscribe-rate-limit sets the page limit per address (429 past it); malformed limits exit 2', async () => {
    const { child, first } = serve(['--unsubscribe-rate-limit', '2', '--unsubscribe-invalid-key-limit', '5', '--unsubscribe-key-post-limit', '7']);
    const url = (await first).slice('listening on '.length);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${url}/unsubscribe`)).status);
    expect(statuses).toEqual([200, 200, 429]);
    child.kill('SIGTERM');
    expect(await exitCode(child)).toBe(0);
    for (const bad of [['--unsubscribe-rate-limit', '0'], ['--unsubscribe-key-post-limit', 'many'], ['--unsubscribe-invalid-key-limit', '-1']]) {
      const r = spawnSync(process.execPath, [...CLI, 'serve', '--port', '0', '--data-dir', dataDir, ...bad], { cwd: ROOT, encoding: 'utf8' });
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(bad[0]);
    }
  });
});

describe('npm run keys', () => {
  it('creates a key (printed alone on the last line), lists it without the secret, and revocation is immediate on a running server', async () => {
    const created = keys('create', '--name', 'dialer', '--permissions', 'cati_integrate,cati_administrate');
    expect(created.status).toBe(0);
    const key = created.lastLine;
    expect(key).toMatch(/^\S{30,}$/);

    const listed = keys('list');
    expect(listed.stdout).toContain('dialer');
    expect(listed.stdout).not.toContain(key);

    const { child, first } = serve();
    const url = (await first).slice('listening on '.length);
    const before = await fetch(`${url}/cati/nowhere`, { headers: { authorization: `Bearer ${key}` } });
    expect(before.status).toBe(404);

    const id = /^(\d+)\tdialer/m.exec(listed.stdout)![1]!;
    expect(keys('revoke', id).status).toBe(0);
    const after = await fetch(`${url}/cati/nowhere`, { headers: { authorization: `Bearer ${key}` } });
    expect(after.status).toBe(401);
    child.kill('SIGTERM');
    await exitCode(child);
  });

  it('rejects unknown permissions and malformed project ids with exit 2 and a message', () => {
    const bad = keys('create', '--name', 'x', '--permissions', 'root');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("Unknown permission 'root'");
    const badProject = keys('create', '--name', 'x', '--permissions', 'optout_administrate', '--projects', 'q1');
    expect(badProject.status).toBe(2);
    expect(badProject.stderr).toContain("Project id 'q1'");
  });
});
