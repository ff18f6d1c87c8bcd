/**
 * `npm run users` (docs/people.md#users) against a running `serve` process on the same data dir (and, in the postgres
 * project, the same PostgreSQL database): the password only from stdin, changes the server sees at once, and
 * no password in any answer, log line or audit row.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, serveUrl, type ServeProcess } from '../helpers/cli-server.ts';
import { testDatabase } from '../helpers/server.ts';

const ADMIN_KEY = 'users-cli-admin-key-0123456789';
const PW1 = 'first-secret-password-5521';
const PW2 = 'second-secret-password-8830';
const PW3 = 'deputy-secret-password-1177';

let dataDir: string;
let where: string[];
let proc: ServeProcess;
let url: string;
const transcript: string[] = [];

function users(input: string | null, ...args: string[]) {
  const r = spawnSync(process.execPath, [...CLI, 'users', ...where, ...args], { encoding: 'utf8', cwd: ROOT, input: input ?? '' });
  transcript.push(r.stdout, r.stderr);
  return r;
}
/** fetch, tried once more when a kept-alive connection was closed by the server while a CLI run took long. */
const send = (path: string, init: RequestInit = {}) => fetch(url + path, init).catch(() => fetch(url + path, init));
const login = async (Name: string, Password: string) => {
  const res = await send('/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ Name, Password }) });
  const text = await res.text();
  transcript.push(text);
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
};
const me = async (key: string) => (await send('/auth/me', { headers: { authorization: `Bearer ${key}` } })).status;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'cati-users-cli-'));
  const database = await testDatabase(dataDir);
  where = ['--data-dir', dataDir, ...(database ? ['--database', database] : [])];
  ({ proc, url } = await serveUrl(dataDir, { CATI_API_KEY: ADMIN_KEY, ...(database ? { CATI_DATABASE_URL: database } : {}) }));
});
afterAll(async () => {
  proc?.child.kill('SIGTERM');
  await proc?.exitCode();
  if (process.env.SHOW_SERVE_OUTPUT) console.log(proc?.output.text);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm run users, while the server runs', { timeout: 180_000 }, () => {
  it('creates a user with the password from stdin, and refuses it as an argument', async () => {
    const created = users(`${PW1}\n`, 'create', '--name', 'boss', '--role', 'administrator');
    expect(created.stderr).toBe('');
    expect(created.status).toBe(0);
    expect(created.stdout).toMatch(/^created user \d+ 'boss' \(administrator\)$/m);
    expect((await login('boss', PW1)).status).toBe(200);

    for (const args of [['--password', PW1], [`--password=${PW1}`], ['-p', PW1]]) {
      const r = users(null, 'create', '--name', 'sneaky', '--role', 'viewer', ...args);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/stdin/);
    }
    const short = users('short\n', 'create', '--name', 'shorty', '--role', 'viewer');
    expect(short.status).toBe(2);
    expect(short.stderr).toMatch(/Password.*12/);
    expect(users(`${PW1}\n`, 'create', '--name', 'bad name', '--role', 'viewer').stderr).toMatch(/Name/);
    expect(users(`${PW1}\n`, 'create', '--name', 'x', '--role', 'root').stderr).toMatch(/Role/);
    const list = users(null, 'list');
    expect(list.status).toBe(0);
    expect(list.stdout).toMatch(/\tboss\tadministrator\tactive\tlast sign-in \d{4}-/);
    expect(list.stdout).not.toMatch(/sneaky|shorty/);
  });

  it('locks (never the last administrator), unlocks and changes passwords; the server refuses ended sessions at once', async () => {
    const key = (await login('boss', PW1)).body.Key as string;
    expect(await me(key)).toBe(200);
    const last = users(null, 'lock', 'boss');
    expect(last.status).toBe(2);
    expect(last.stderr).toMatch(/administrator/);
    expect(users(`${PW3}\n`, 'create', '--name', 'deputy', '--role', 'administrator').status).toBe(0);
    expect(users(null, 'lock', 'BOSS').status).toBe(0);
    expect(await me(key)).toBe(401);
    expect((await login('boss', PW1)).status).toBe(401);
    expect(users(null, 'unlock', 'boss').status).toBe(0);
    const again = (await login('boss', PW1)).body.Key as string;
    expect(users(`${PW2}\n`, 'password', 'boss').status).toBe(0);
    expect(await me(again)).toBe(401);
    expect((await login('boss', PW1)).status).toBe(401);
    expect((await login('boss', PW2)).status).toBe(200);
    expect(users(null, 'lock', 'nobody').stderr).toMatch(/No user named 'nobody'/);
  });

  it('no password in any answer, log line or audit row', async () => {
    const audit = await (await send('/admin/audit?$format=csv', { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).text();
    expect(audit).toMatch(/,cli,created,users,/);
    expect(audit).toMatch(/,boss,login failed,sessions,/);
    transcript.push(audit, (await (await send('/admin/users', { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).text()));
    const all = transcript.join('\n') + proc.output.text;
    for (const pw of [PW1, PW2, PW3]) expect(all).not.toContain(pw);
  });
});
