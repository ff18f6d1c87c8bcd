/**
 * The role matrix (server/auth/roles.ts ROLE_MATRIX) walked on a real server: for every route group and each of
 * the three roles, a user of that role signs in and sends the group's probes; allowed means anything but 401/403,
 * refused means 403. A group added to the matrix without probes here fails the test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_MATRIX, ROLES, type Role } from '../../server/auth/roles.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

interface Probe {
  method: string;
  path: string;
  body?: unknown;
}

let t: TestServer;
let listId: number;
const keys = {} as Record<Role, string>;
const PASSWORD = 'matrix password 1234';

/** The requests that stand for each group (ids that do not exist are fine: 404 is "allowed"). */
const probes = (): Record<string, Probe[]> => ({
  'CATI reads (collections, entities, $count, side-effect-free functions)': [
    { method: 'GET', path: '/cati/groups' },
    { method: 'GET', path: '/cati/interviewers/$count' },
    { method: 'GET', path: '/cati/callhistory?$top=1' },
    { method: 'GET', path: '/cati/' },
  ],
  'CATI writes (POST, PATCH, DELETE, imports)': [
    { method: 'POST', path: '/cati/groups', body: { Name: `matrix ${Math.random()}` } },
    { method: 'DELETE', path: '/cati/blacklist(999999)' },
  ],
  'CATI effectful functions (Lock, Unlock, Assign…)': [{ method: 'GET', path: '/cati/interviewers(999999)/Controller.Lock' }],
  'CATI ingest (cati_integrate)': [{ method: 'POST', path: '/cati/callhistory', body: {} }],
  'Live events (GET /events)': [{ method: 'GET', path: '/events' }],
  'Project opt-out list reads (entries, export, Check)': [
    { method: 'GET', path: '/optout/lists?projectId=p1' },
    { method: 'GET', path: `/optout/lists/${listId}/emails` },
    { method: 'GET', path: `/optout/lists/${listId}/domains/export` },
    { method: 'GET', path: `/optout/lists/${listId}/Check?email=a@example.org` },
  ],
  'Project opt-out list changes (add, import, delete)': [
    { method: 'POST', path: `/optout/lists/${listId}/emails`, body: {} },
    { method: 'DELETE', path: `/optout/lists/${listId}/emails/999999` },
  ],
  'Company-level opt-out list': [{ method: 'GET', path: '/optout/lists' }],
  'Opt-out settings': [{ method: 'GET', path: '/optout/settings' }],
  'Company settings read (GET /admin/settings)': [{ method: 'GET', path: '/admin/settings' }],
  'Company settings change (PATCH /admin/settings, the phone-region preview)': [
    { method: 'PATCH', path: '/admin/settings', body: {} },
    { method: 'GET', path: '/admin/settings/phone-region-preview?region=DE' },
  ],
  'Administration (users, API keys, UI sessions, audit log)': [
    { method: 'GET', path: '/admin/users' },
    { method: 'POST', path: '/admin/users', body: {} },
    { method: 'GET', path: '/admin/keys' },
    { method: 'GET', path: '/admin/ui-sessions' },
    { method: 'GET', path: '/admin/audit' },
  ],
  'Own session (GET /auth/me, POST /auth/logout)': [{ method: 'GET', path: '/auth/me' }],
});

/** The status of one probe (a stream such as /events is cut once its head has come). */
async function statusOf(probe: Probe, key: string): Promise<number> {
  const abort = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (probe.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(t.url + probe.path, { method: probe.method, headers, body: probe.body === undefined ? undefined : JSON.stringify(probe.body), signal: abort.signal });
  abort.abort();
  return res.status;
}

beforeAll(async () => {
  t = await startTestServer();
  listId = (await t.json('POST', '/optout/lists', { body: { projectId: 'p1' } })).body.id;
  for (const role of ROLES) {
    expect((await t.json('POST', '/admin/users', { body: { Name: `matrix.${role}`, Role: role, Password: PASSWORD } })).status).toBe(201);
    const login = await t.json('POST', '/auth/login', { body: { Name: `matrix.${role}`, Password: PASSWORD }, key: null });
    keys[role] = login.body.Key;
  }
});
afterAll(() => t.close());

describe('the role matrix: every route group × the three roles', () => {
  it('has probes for every group', () => {
    expect(Object.keys(probes()).sort()).toEqual(ROLE_MATRIX.map((g) => g.group).sort());
  });

  for (const row of ROLE_MATRIX) {
    it(row.group, async () => {
      const found: string[] = [];
      const wanted: string[] = [];
      for (const role of ROLES) {
        for (const probe of probes()[row.group] ?? []) {
          const status = await statusOf(probe, keys[role]);
          const allowed = status !== 401 && status !== 403;
          found.push(`${role} ${probe.method} ${probe.path}: ${allowed ? 'allowed' : `refused (${status})`}`);
          wanted.push(`${role} ${probe.method} ${probe.path}: ${row[role] ? 'allowed' : 'refused (403)'}`);
        }
      }
      expect(found).toEqual(wanted);
    });
  }
});
