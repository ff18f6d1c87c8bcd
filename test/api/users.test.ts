import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../server/auth/passwords.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// docs/people.md#users: user accounts, sign-in with a name and password, sessions that follow the UI-session rules.

const PASSWORD = 'correct horse battery staple';
const USER_FIELDS = ['UserId', 'Name', 'DisplayName', 'Role', 'Locked', 'CreatedAt', 'LastLoginAt', 'Language'];

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

/**
 * A stored hash names its own cost (docs/people.md#users), so a user's hash may be swapped for a cheaper one of the
 * same password, as one stored at an older cost would be: the tests about sessions and throttling sign in dozens of
 * times, and at the user cost (16 MiB, p=5) each sign-in is a quarter of a second of CPU. The tests about hashing
 * itself (what is stored, the dummy hash's timing) keep the real cost.
 */
async function cheapenPassword(server: TestServer, userId: number): Promise<void> {
  await server.server.ctx.store.run('UPDATE users SET password_hash = ? WHERE id = ?', [await hashPassword(PASSWORD, { N: 1024, r: 8, p: 1 }), userId]);
}

const createUser = async (Name: string, Role: string, extra: Record<string, unknown> = {}) => {
  const r = await t.json('POST', '/admin/users', { body: { Name, Role, Password: PASSWORD, ...extra } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  await cheapenPassword(t, r.body.UserId);
  return r.body as { UserId: number; Name: string };
};
const login = (Name: string, Password = PASSWORD, server = t) => server.json('POST', '/auth/login', { body: { Name, Password }, key: null });
const userCount = async () => Number(await t.server.ctx.store.value('SELECT count(*) FROM users'));

describe('/admin/users', () => {
  it('creates, lists, reads, changes and deletes users with exactly the contract fields', async () => {
    const created = await t.json('POST', '/admin/users', { body: { Name: 'anna.b', DisplayName: 'Anna B', Role: 'supervisor', Password: PASSWORD } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(USER_FIELDS);
    expect(created.body).toMatchObject({ Name: 'anna.b', DisplayName: 'Anna B', Role: 'supervisor', Locked: false, LastLoginAt: null });
    expect(created.body.CreatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const id = created.body.UserId;

    const list = await t.json('GET', '/admin/users');
    expect(list.status).toBe(200);
    expect(list.body.value.map((u: { Name: string }) => u.Name)).toContain('anna.b');
    expect((await t.json('GET', `/admin/users/${id}`)).body).toEqual(created.body);

    const patched = await t.json('PATCH', `/admin/users/${id}`, { body: { DisplayName: 'Anna Bakker', Role: 'viewer' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ UserId: id, DisplayName: 'Anna Bakker', Role: 'viewer' });

    expect((await t.json('DELETE', `/admin/users/${id}`)).status).toBe(204);
    expect((await t.json('GET', `/admin/users/${id}`)).status).toBe(404);
    expect((await t.json('DELETE', `/admin/users/${id}`)).status).toBe(404);
    expect((await t.json('PATCH', `/admin/users/${id}`, { body: { DisplayName: 'x' } })).status).toBe(404);
    expect((await t.json('GET', '/admin/users/abc')).status).toBe(400);
    expect((await t.json('PUT', `/admin/users/${id}`, { body: {} })).status).toBe(405);
  });

  it('refuses bad input with 400 naming the field, and stores nothing', async () => {
    const before = await userCount();
    const cases: [Record<string, unknown>, string][] = [
      [{ Name: 'has space', Role: 'viewer', Password: PASSWORD }, 'Name'],
      [{ Name: '', Role: 'viewer', Password: PASSWORD }, 'Name'],
      [{ Name: 'x'.repeat(65), Role: 'viewer', Password: PASSWORD }, 'Name'],
      [{ Name: 'semi;colon', Role: 'viewer', Password: PASSWORD }, 'Name'],
      [{ Role: 'viewer', Password: PASSWORD }, 'Name'],
      [{ Name: 'bob', Role: 'root', Password: PASSWORD }, 'Role'],
      [{ Name: 'bob', Password: PASSWORD }, 'Role'],
      [{ Name: 'bob', Role: 'viewer', Password: 'short-pass1' }, 'Password'],
      [{ Name: 'bob', Role: 'viewer' }, 'Password'],
      [{ Name: 'bob', Role: 'viewer', Password: PASSWORD, UserId: 5 }, 'UserId'],
      [{ Name: 'bob', Role: 'viewer', Password: PASSWORD, DisplayName: '' }, 'DisplayName'],
    ];
    for (const [body, field] of cases) {
      const r = await t.json('POST', '/admin/users', { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message, JSON.stringify(body)).toContain(field);
    }
    expect(await userCount()).toBe(before);
    expect(Number(await t.server.ctx.store.value("SELECT count(*) FROM audit_log WHERE entity = 'users' AND entity_id IS NULL"))).toBe(0);

    const u = await createUser('bob', 'viewer');
    for (const [body, field] of [
      [{ Role: 'superuser' }, 'Role'],
      [{ Locked: 'yes' }, 'Locked'],
      [{ Password: 'too short' }, 'Password'],
      [{ Name: 'renamed' }, 'Name'],
      [{ LastLoginAt: null }, 'LastLoginAt'],
    ] as const) {
      const r = await t.json('PATCH', `/admin/users/${u.UserId}`, { body });
      expect(r.status).toBe(400);
      expect(r.body.message).toContain(field);
    }
    expect((await t.json('GET', `/admin/users/${u.UserId}`)).body).toMatchObject({ Name: 'bob', Role: 'viewer', Locked: false });
  });

  it('keeps names unique without regard to case (409)', async () => {
    await createUser('Carla', 'viewer');
    const dup = await t.json('POST', '/admin/users', { body: { Name: 'carla', Role: 'viewer', Password: PASSWORD } });
    expect(dup.status).toBe(409);
    expect((await login('CARLA')).status).toBe(200); // signs in whatever the case typed
  });

  it('never lets the last unlocked administrator go: delete, demote or lock → 409', async () => {
    // This server's only users so far are not administrators, so the first administrator is the last one.
    const admin = await createUser('root.admin', 'administrator');
    expect((await t.json('DELETE', `/admin/users/${admin.UserId}`)).status).toBe(409);
    expect((await t.json('PATCH', `/admin/users/${admin.UserId}`, { body: { Role: 'supervisor' } })).status).toBe(409);
    const lock = await t.json('PATCH', `/admin/users/${admin.UserId}`, { body: { Locked: true } });
    expect(lock.status).toBe(409);
    expect(lock.body.message).toMatch(/administrator/);
    expect((await t.json('GET', `/admin/users/${admin.UserId}`)).body).toMatchObject({ Role: 'administrator', Locked: false });

    const second = await createUser('second.admin', 'administrator');
    expect((await t.json('PATCH', `/admin/users/${admin.UserId}`, { body: { Locked: true } })).status).toBe(200);
    expect((await t.json('DELETE', `/admin/users/${second.UserId}`)).status).toBe(409); // now the last unlocked one
    expect((await t.json('PATCH', `/admin/users/${admin.UserId}`, { body: { Locked: false } })).status).toBe(200);
    expect((await t.json('DELETE', `/admin/users/${second.UserId}`)).status).toBe(204);
  });

  it('is for company_administrate only', async () => {
    await createUser('sup.only', 'supervisor');
    const { Key } = (await login('sup.only')).body;
    expect((await t.json('GET', '/admin/users', { key: Key })).status).toBe(403);
    expect((await t.json('GET', '/admin/users', { key: null })).status).toBe(401);
  });
});

describe('sign-in', () => {
  it('POST /auth/login answers a session key with the role’s permissions; GET /auth/me describes the caller', async () => {
    const u = await createUser('dave', 'supervisor', { DisplayName: 'Dave D' });
    const r = await login('dave');
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(r.body)).toEqual(['Key', 'ExpiresAt', 'User']);
    expect(r.body.Key).toMatch(/^uis_/);
    expect(Date.parse(r.body.ExpiresAt) - Date.now()).toBeGreaterThan(11.9 * 3600_000);
    expect(r.body.User).toMatchObject({ UserId: u.UserId, Name: 'dave', Role: 'supervisor' });
    expect(r.body.User.LastLoginAt).not.toBeNull();

    const me = await t.json('GET', '/auth/me', { key: r.body.Key });
    expect(me.body).toEqual({ Kind: 'user', Name: 'dave', DisplayName: 'Dave D', Role: 'supervisor', Permissions: ['cati_administrate', 'optout_administrate'], Language: null });
    expect((await t.json('GET', '/auth/me')).body).toMatchObject({ Kind: 'key', Name: 'CATI_API_KEY', Role: null });
    const link = await t.json('POST', '/auth/ui-token', { body: { token: await t.server.ctx.keys.ui.mintToken() }, key: null });
    expect((await t.json('GET', '/auth/me', { key: link.body.key })).body).toMatchObject({ Kind: 'ui-link', Role: null });

    // Only the digest is stored.
    expect(JSON.stringify(await t.server.ctx.store.all('SELECT * FROM ui_sessions'))).not.toContain(r.body.Key);
  });

  it('answers the same 401 for an unknown name, a wrong password and a locked user', async () => {
    const u = await createUser('erin', 'viewer');
    const unknown = await t.request('POST', '/auth/login', { body: { Name: 'nobody.here', Password: PASSWORD }, key: null });
    const wrong = await t.request('POST', '/auth/login', { body: { Name: 'erin', Password: 'not the password!' }, key: null });
    await t.json('PATCH', `/admin/users/${u.UserId}`, { body: { Locked: true } });
    const locked = await t.request('POST', '/auth/login', { body: { Name: 'erin', Password: PASSWORD }, key: null });
    const answers = [unknown, wrong, locked];
    for (const a of answers) expect(a.status).toBe(401);
    const bodies = await Promise.all(answers.map((a) => a.text()));
    expect(new Set(bodies).size).toBe(1);
    expect(new Set(answers.map((a) => [...a.headers].filter(([k]) => k !== 'date').join('|'))).size).toBe(1);
    expect((await t.json('POST', '/auth/login', { body: { Name: 'erin' }, key: null })).status).toBe(400);
  });

  it('POST /auth/logout ends that session only', async () => {
    await createUser('fay', 'viewer');
    const a = (await login('fay')).body.Key;
    const b = (await login('fay')).body.Key;
    expect((await t.json('POST', '/auth/logout', { key: a })).status).toBe(204);
    expect((await t.json('GET', '/auth/me', { key: a })).status).toBe(401);
    expect((await t.json('GET', '/auth/me', { key: b })).status).toBe(200);
    expect((await t.json('POST', '/auth/logout')).status).toBe(400); // an API key is no session
  });

  it('locking a user or changing its password ends all its sessions at once, also on another server on the database', async () => {
    const u = await createUser('gus', 'supervisor');
    const other = await startTestServer({ dataDir: t.dataDir, database: t.server.ctx.config.database });
    try {
      const k1 = (await login('gus')).body.Key;
      const k2 = (await login('gus', PASSWORD, other)).body.Key;
      for (const k of [k1, k2]) expect((await other.json('GET', '/auth/me', { key: k })).status).toBe(200);
      expect((await other.json('PATCH', `/admin/users/${u.UserId}`, { body: { Locked: true } })).status).toBe(200);
      for (const k of [k1, k2]) {
        expect((await t.json('GET', '/auth/me', { key: k })).status).toBe(401);
        expect((await other.json('GET', '/auth/me', { key: k })).status).toBe(401);
      }
      await t.json('PATCH', `/admin/users/${u.UserId}`, { body: { Locked: false } });
      const k3 = (await login('gus')).body.Key;
      expect((await t.json('GET', '/auth/me', { key: k3 })).status).toBe(200);
      expect((await other.json('PATCH', `/admin/users/${u.UserId}`, { body: { Password: 'a whole new password' } })).status).toBe(200);
      expect((await t.json('GET', '/auth/me', { key: k3 })).status).toBe(401);
      expect((await login('gus')).status).toBe(401);
      expect((await login('gus', 'a whole new password')).status).toBe(200);
      // A role change applies to a live session at once.
      const k4 = (await login('gus', 'a whole new password')).body.Key;
      await other.json('PATCH', `/admin/users/${u.UserId}`, { body: { Role: 'viewer' } });
      expect((await t.json('GET', '/auth/me', { key: k4 })).body.Role).toBe('viewer');
      expect((await t.json('POST', '/cati/groups', { key: k4, body: { Name: 'no' } })).status).toBe(403);
    } finally {
      await other.close();
    }
  });

  it('names the person in the audit log (Actor, ActorUserId); sign-ins are entity sessions, never keys', async () => {
    const u = await createUser('hana', 'supervisor');
    const { Key } = (await login('hana')).body;
    const created = await t.json('POST', '/cati/groups', { key: Key, body: { Name: 'Evening shift' } });
    expect(created.status).toBe(201);
    await login('hana', 'wrong password!!');
    await t.json('POST', '/auth/logout', { key: Key });
    const rows = (await t.json('GET', '/admin/audit?$top=1000')).body.value as Record<string, unknown>[];
    const group = rows.find((r) => r.Entity === 'groups' && r.EntityId === String(created.body.GroupId));
    expect(group).toMatchObject({ Actor: 'hana', ActorUserId: u.UserId, ActorKeyId: null, Action: 'created' });
    const sessions = rows.filter((r) => r.Entity === 'sessions' && r.Actor === 'hana').map((r) => r.Action);
    expect(sessions).toEqual(expect.arrayContaining(['login', 'login failed', 'logout']));
    expect(rows.filter((r) => r.Entity === 'keys')).toEqual([]);
    const hidden = (await t.json('GET', '/admin/audit?$top=1000&excludeEntity=sessions')).body.value as Record<string, unknown>[];
    expect(hidden.length).toBeGreaterThan(0);
    expect(hidden.filter((r) => r.Entity === 'sessions')).toEqual([]);
    const csv = await (await t.request('GET', '/admin/audit?$format=csv&entity=groups')).text();
    expect(csv.split('\r\n')[0]).toBe('Id,Time,ActorKeyId,ActorUserId,Actor,Action,Entity,EntityId,Changes,EntityName,ChangeNames');
    expect(csv).toContain(`,${u.UserId},hana,created,groups,`);
    // The user's own changes: created, audited without the password.
    const userRows = rows.filter((r) => r.Entity === 'users' && r.EntityId === String(u.UserId));
    expect(userRows[0]).toMatchObject({ Action: 'created', Changes: { Name: 'hana', DisplayName: 'hana', Role: 'supervisor', Locked: false } });
  });

  it('no answer, audit row or stored column holds a password', async () => {
    const secret = 'unique-secret-password-7431';
    const u = await t.json('POST', '/admin/users', { body: { Name: 'ivan', Role: 'viewer', Password: secret } });
    const answers = [JSON.stringify(u.body)];
    answers.push(JSON.stringify((await t.json('PATCH', `/admin/users/${u.body.UserId}`, { body: { Password: `${secret}-2` } })).body));
    answers.push(JSON.stringify((await login('ivan', `${secret}-2`)).body));
    answers.push(JSON.stringify((await login('ivan', secret)).body ?? ''));
    answers.push(JSON.stringify((await t.json('GET', '/admin/users')).body));
    answers.push(await (await t.request('GET', '/admin/audit?$format=csv')).text());
    const dump = JSON.stringify(await t.server.ctx.store.all('SELECT * FROM users')) + JSON.stringify(await t.server.ctx.store.all('SELECT * FROM audit_log'));
    for (const text of [...answers, dump]) expect(text).not.toContain(secret);
    expect(dump).toMatch(/scrypt\$16384\$8\$5\$/);
  });
});

describe('sign-in throttle (more than 10 failures in 15 minutes → 429)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ trustProxy: true });
    for (const Name of ['jack', 'kim']) {
      const r = await s.json('POST', '/admin/users', { body: { Name, Role: 'viewer', Password: PASSWORD } });
      if (Name === 'jack') await cheapenPassword(s, r.body.UserId); // kim keeps the real cost: the timing test compares it with the dummy hash
    }
  });
  afterAll(() => s.close());
  const from = (address: string, Name: string, Password: string) =>
    s.json('POST', '/auth/login', { body: { Name, Password }, key: null, headers: { 'x-forwarded-for': address } });

  it('per name, from any address, even for the right password', async () => {
    for (let i = 0; i < 11; i++) expect((await from(`10.0.0.${i + 1}`, 'jack', 'wrong password!!')).status).toBe(401);
    const refused = await from('10.0.1.1', 'jack', PASSWORD);
    expect(refused.status).toBe(429);
    const retry = Number(refused.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(800);
    expect(retry).toBeLessThanOrEqual(900);
    expect((await from('10.0.1.1', 'kim', PASSWORD)).status).toBe(200); // another name is not held up
  });

  it('per client address, whatever the names tried', async () => {
    // At once: each is checked against the limit on arrival, before any failure is counted, so all 11 are 401.
    const guesses = await Promise.all(Array.from({ length: 11 }, (_, i) => from('10.9.9.9', `guess${i}`, 'wrong password!!')));
    expect(guesses.map((r) => r.status)).toEqual(Array(11).fill(401));
    expect((await from('10.9.9.9', 'kim', PASSWORD)).status).toBe(429);
    expect((await from('10.9.9.8', 'kim', PASSWORD)).status).toBe(200);
  });

  it('takes as long for an unknown name as for a wrong password (a dummy hash)', async () => {
    const time = async (Name: string, address: string) => {
      const start = performance.now();
      expect((await from(address, Name, 'wrong password!!')).status).toBe(401);
      return performance.now() - start;
    };
    const unknown: number[] = [];
    const wrong: number[] = [];
    for (let i = 0; i < 5; i++) {
      unknown.push(await time(`ghost${i}`, `10.7.0.${i}`));
      wrong.push(await time('kim', `10.7.1.${i}`));
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[2]!;
    const ratio = median(unknown) / median(wrong);
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });
});
