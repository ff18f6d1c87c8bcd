import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audited } from '../helpers/audit.ts';
import { CLI, ROOT } from '../helpers/cli-server.ts';
import { startTestServer, testDatabase, type TestServer } from '../helpers/server.ts';

// Opt-out lists, entries, imports, settings, the unsubscribe page and API keys (CONTRACT §10): each change
// over HTTP (or the CLI) leaves its audit row, read back through GET /admin/audit.
let t: TestServer;
let key: string;
let keyId: number;
let listId: number;

beforeAll(async () => {
  t = await startTestServer();
  const created = await t.server.ctx.keys.create('privacy officer', ['company_administrate', 'optout_administrate']);
  [key, keyId] = [created.key, created.info.id];
});
afterAll(() => t.close());

const as = (method: string, path: string, body?: unknown) => t.json(method, path, { body, key });
const upload = (kind: string, content: string, name: string) => {
  const fd = new FormData();
  fd.append('file', new Blob([content]), name);
  return t.json('POST', `/optout/lists/${listId}/${kind}/import`, { raw: fd, key });
};
const by = { ActorKeyId: expect.any(Number), Actor: 'privacy officer' };

describe('audit of opt-out changes', () => {
  it('a new list is recorded once (creating it again changes nothing)', async () => {
    const { result, rows } = await audited(t, async () => (await as('POST', '/optout/lists', { projectId: 'p4711' })).body);
    listId = result.id;
    expect(rows).toEqual([expect.objectContaining({ ...by, ActorKeyId: keyId, Action: 'created', Entity: 'optout-lists', EntityId: String(listId) })]);
    expect((await audited(t, () => as('POST', '/optout/lists', { projectId: 'p4711' }))).rows).toEqual([]);
  });

  it('e-mail and domain entries: add and delete; adding an existing one again is no change', async () => {
    const { result: email, rows: added } = await audited(t, async () => (await as('POST', `/optout/lists/${listId}/emails`, { emailAddress: 'Ann@Example.org' })).body);
    expect(added).toEqual([
      expect.objectContaining({ ...by, Action: 'created', Entity: 'optout-emails', EntityId: String(email), Changes: { listId, emailAddress: 'ann@example.org', unsubscribedFrom: null } }),
    ]);
    expect((await audited(t, () => as('POST', `/optout/lists/${listId}/emails`, { emailAddress: 'ann@example.org' }))).rows).toEqual([]);
    const { result: domain, rows: addedDomain } = await audited(t, async () => (await as('POST', `/optout/lists/${listId}/domains`, { domain: 'spam.test' })).body);
    expect(addedDomain.map((r) => [r.Action, r.Entity, r.EntityId, r.Changes])).toEqual([['created', 'optout-domains', String(domain), { listId, domain: 'spam.test' }]]);
    const { rows: deleted } = await audited(t, async () => {
      expect((await as('DELETE', `/optout/lists/${listId}/emails/${email}`)).status).toBe(204);
      expect((await as('DELETE', `/optout/lists/${listId}/domains/${domain}`)).status).toBe(204);
    });
    expect(deleted.map((r) => [r.Action, r.Entity, r.EntityId, r.Changes])).toEqual([
      ['deleted', 'optout-emails', String(email), { listId, emailAddress: 'ann@example.org', unsubscribedFrom: null }],
      ['deleted', 'optout-domains', String(domain), { listId, domain: 'spam.test' }],
    ]);
  });

  it('an import is one row with its counts, by the key that uploaded it (written by the import worker)', async () => {
    await as('POST', `/optout/lists/${listId}/emails`, { emailAddress: 'old@example.org' });
    const { result, rows } = await audited(t, () => upload('emails', 'emailAddress\r\nold@example.org\r\nnew@example.org\r\nnew@example.org\r\nnot-an-address\r\n', 'list.csv'));
    expect(result.body).toEqual({ newRows: 1, duplicatedRows: 2, invalidRows: 1, Encoding: 'utf-8' });
    expect(rows).toEqual([
      expect.objectContaining({
        ...by,
        ActorKeyId: keyId,
        Action: 'imported',
        Entity: 'optout-imports',
        EntityId: String(listId),
        Changes: { listId, kind: 'emails', newRows: 1, duplicatedRows: 2, invalidRows: 1 },
      }),
    ]);
  });

  it('a refused import (400) or a refused entry writes no audit row', async () => {
    const { rows } = await audited(t, async () => {
      expect((await upload('emails', 'PK\u0003\u0004not really a workbook', 'list.csv')).status).toBe(400);
      expect((await upload('domains', 'a.test\n', 'list.pdf')).status).toBe(400);
      expect((await as('POST', `/optout/lists/${listId}/emails`, { emailAddress: 'nope' })).status).toBe(400);
      expect((await as('DELETE', `/optout/lists/${listId}/emails/999999`)).status).toBe(404);
      expect((await as('PUT', '/optout/settings', { companyName: 5 })).status).toBe(400);
    });
    expect(rows).toEqual([]);
  });

  it('the unsubscribe page adds as "unsubscribe page" with no key id', async () => {
    const link = (await as('POST', `/optout/lists/${listId}/unsubscribe-links`, { emailAddress: 'leaver@example.org' })).body as { key: string };
    const { rows } = await audited(t, async () => {
      const res = await fetch(`${t.url}/unsubscribe?key=${link.key}`, { method: 'POST', body: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(res.status).toBe(200);
    });
    expect(rows).toEqual([
      expect.objectContaining({ ActorKeyId: null, Actor: 'unsubscribe page', Action: 'created', Entity: 'optout-emails', Changes: { listId, emailAddress: 'leaver@example.org', unsubscribedFrom: 'p4711' } }),
    ]);
  });

  it('opt-out settings: the fields that changed, before → after (null restores the default)', async () => {
    const { rows } = await audited(t, async () => {
      await as('PUT', '/optout/settings', { companyName: 'Acme Research' });
      await as('PUT', '/optout/settings', { companyName: 'Acme Research' }); // no change, no row
      await as('PUT', '/optout/settings', { companyName: null });
    });
    expect(rows.map((r) => [r.Actor, r.Action, r.Entity, r.EntityId, r.Changes])).toEqual([
      ['privacy officer', 'updated', 'optout-settings', null, { companyName: ['', 'Acme Research'] }],
      ['privacy officer', 'updated', 'optout-settings', null, { companyName: ['Acme Research', ''] }],
    ]);
  });
});

describe('audit of API keys', () => {
  it('create and revoke over HTTP, never the key or its digest', async () => {
    const { result, rows } = await audited(t, async () => {
      const created = await as('POST', '/admin/keys', { name: 'mailer', permissions: ['optout_administrate'], projects: ['p4711'] });
      expect(created.status).toBe(201);
      expect((await as('DELETE', `/admin/keys/${created.body.id}`)).status).toBe(204);
      return created.body as { id: number; key: string; prefix: string };
    });
    expect(rows.map((r) => [r.Actor, r.Action, r.Entity, r.EntityId])).toEqual([
      ['privacy officer', 'created', 'keys', String(result.id)],
      ['privacy officer', 'revoked', 'keys', String(result.id)],
    ]);
    expect(rows[0]!.Changes).toEqual({ name: 'mailer', prefix: result.prefix, permissions: ['optout_administrate'], projects: ['p4711'] });
    expect(rows[1]!.Changes).toEqual({ name: 'mailer', prefix: result.prefix, revokedAt: [null, expect.stringMatching(/^\d{4}-.*Z$/)] });
    expect(JSON.stringify(rows)).not.toContain(result.key);
    const digest = (await t.server.ctx.store.value<string>('SELECT key_hash FROM api_keys WHERE id = ?', [result.id]))!;
    expect(JSON.stringify(rows)).not.toContain(digest);
  });

  it('npm run keys (the CLI) is recorded as "cli" with no key id', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cati-audit-cli-'));
    try {
      const database = await testDatabase(dataDir); // PostgreSQL runs: the CLI works on the same database the server will
      const where = database ? ['--database', database] : ['--data-dir', dataDir];
      const cli = (...args: string[]) =>
        spawnSync(process.execPath, [...CLI, 'keys', ...where, ...args], { encoding: 'utf8', cwd: ROOT });
      expect(cli('create', '--name', 'from the shell', '--permissions', 'cati_integrate').status).toBe(0);
      expect(cli('revoke', '1').status).toBe(0);
      const s = await startTestServer({ dataDir });
      try {
        const r = await s.json('GET', '/admin/audit?entity=keys');
        expect(r.body.value.map((row: Record<string, unknown>) => [row.ActorKeyId, row.Actor, row.Action, row.EntityId])).toEqual([
          [null, 'cli', 'revoked', '1'],
          [null, 'cli', 'created', '1'],
        ]);
      } finally {
        await s.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
