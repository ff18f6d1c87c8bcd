import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngine } from '../helpers/engine.ts';
import { freshPgDatabase } from '../helpers/postgres.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// docs/cati-api.md#phone-region: the phone region is a stored company setting (GET/PATCH /admin/settings).
const check = (t: TestServer, n: string) => t.json('GET', `/cati/blacklist/Controller.Check(telephoneNumber='${encodeURIComponent(n)}')`);
const settingsAudit = (t: TestServer) =>
  t.server.ctx.store.all<{ action: string; entity: string; changes: string; actor: string }>(
    "SELECT action, entity, changes, actor FROM audit_log WHERE entity = 'settings' OR action IN ('deleted', 'renormalised') ORDER BY id",
  );

describe('GET/PATCH /admin/settings', () => {
  let dataDir: string;
  let t: TestServer;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cati-settings-'));
    t = await startTestServer({ dataDir });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts with no region: numbers are compared digit by digit, and Check says which digits it compared', async () => {
    expect((await t.json('GET', '/admin/settings')).body).toEqual({ PhoneRegion: null });
    for (const [n, comment] of [['+31 (0)20 555-0198', 'first'], ['0031 20 555 0198', 'second'], ['020 555 0198', 'third']]) {
      expect((await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: n, Comment: comment } })).status).toBe(201);
    }
    expect((await check(t, '020 555 0198')).body).toMatchObject({ value: true, Normalized: '0205550198' });
    expect((await check(t, '0031205550199')).body).toMatchObject({ value: false, MatchedId: null, Normalized: '0031205550199' });
  });

  it('the preview counts what a region would change and merge, with examples, changing nothing', async () => {
    const preview = await t.json('GET', '/admin/settings/phone-region-preview?region=nl');
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ Region: 'NL', Current: null, Entries: 3, Changes: 0, Merges: 2 });
    expect(preview.body.Examples).toContainEqual({ Input: '06 12345678', Stored: '31612345678' });
    expect((await t.json('GET', '/cati/blacklist?$count=true')).body['@odata.count']).toBe(3);
    const bad = await t.json('GET', '/admin/settings/phone-region-preview?region=QQ');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/'QQ'/);
  });

  it('PATCH NL re-normalises in one audited transaction: duplicates merged into the lowest Id, Check now matches every spelling', async () => {
    const patched = await t.json('PATCH', '/admin/settings', { body: { PhoneRegion: 'NL' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ PhoneRegion: 'NL', Renormalised: { Updated: 0, Merged: 2 } });
    expect((await t.json('GET', '/admin/settings')).body).toEqual({ PhoneRegion: 'NL' });
    const items = (await t.json('GET', '/cati/blacklist')).body.value;
    expect(items.map((i: any) => [i.TelephoneNumber, i.Comment])).toEqual([['31205550198', 'first']]);
    for (const n of ['0031205550198', '020 555 0198', '+31 20 555 0198']) {
      expect((await check(t, n)).body, n).toMatchObject({ value: true, MatchedId: items[0].Id, Normalized: '31205550198' });
    }
    expect((await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '0031 20 555 0198' } })).status).toBe(409);
    const audit = await settingsAudit(t);
    expect(audit.filter((a) => a.action === 'deleted')).toHaveLength(2);
    expect(audit.find((a) => a.entity === 'settings')).toMatchObject({ action: 'updated', actor: 'CATI_API_KEY' });
    expect(JSON.parse(audit.find((a) => a.entity === 'settings')!.changes)).toEqual({ PhoneRegion: [null, 'NL'] });
  });

  it('an unknown region → 400 naming it, nothing changed; unknown settings → 400; other keys may read but not change (403)', async () => {
    const before = (await settingsAudit(t)).length;
    const bad = await t.json('PATCH', '/admin/settings', { body: { PhoneRegion: 'XX' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/'XX'/);
    expect((await t.json('PATCH', '/admin/settings', { body: { Colour: 'red' } })).status).toBe(400);
    expect((await t.json('GET', '/admin/settings')).body).toEqual({ PhoneRegion: 'NL' });
    expect(await settingsAudit(t)).toHaveLength(before);
    const { key } = await t.server.ctx.keys.create('supervisor', ['cati_administrate']);
    expect((await t.json('PATCH', '/admin/settings', { body: { PhoneRegion: 'DE' }, key })).status).toBe(403);
    expect((await t.json('GET', '/admin/settings', { key })).body).toEqual({ PhoneRegion: 'NL' });
    const { key: mailer } = await t.server.ctx.keys.create('mailer', ['optout_administrate']);
    expect((await t.json('GET', '/admin/settings', { key: mailer })).status).toBe(403);
  });

  it('a restart without --phone-region keeps the stored region; with it, stores the flag', async () => {
    await t.close();
    t = await startTestServer({ dataDir });
    expect((await t.json('GET', '/admin/settings')).body).toEqual({ PhoneRegion: 'NL' });
    expect((await check(t, '020 555 0198')).body.value).toBe(true);
    await t.close();
    t = await startTestServer({ dataDir, phoneRegion: 'DE' });
    expect((await t.json('GET', '/admin/settings')).body).toEqual({ PhoneRegion: 'DE' });
    expect((await t.json('PATCH', '/admin/settings', { body: { PhoneRegion: null } })).body).toEqual({ PhoneRegion: null, Renormalised: { Updated: 0, Merged: 0 } });
  });
});

describe.skipIf(testEngine() !== 'postgres')('two servers on one PostgreSQL database', () => {
  it('a PATCH through one is what the other normalises with at once', async () => {
    const database = await freshPgDatabase();
    const a = await startTestServer({ database });
    const b = await startTestServer({ database });
    try {
      expect((await check(b, '020 555 0198')).body.Normalized).toBe('0205550198');
      expect((await a.json('PATCH', '/admin/settings', { body: { PhoneRegion: 'NL' } })).status).toBe(200);
      expect((await b.json('GET', '/admin/settings')).body).toEqual({ PhoneRegion: 'NL' });
      expect((await check(b, '020 555 0198')).body.Normalized).toBe('31205550198');
      expect((await b.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '06 1234 5678' } })).body.TelephoneNumber).toBe('31612345678');
    } finally {
      await a.close();
      await b.close();
    }
  });
});
