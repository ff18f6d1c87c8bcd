import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT } from '../helpers/cli-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// docs/cati-api.md#phone-region: --phone-region; numbers that block each other in every format; re-normalisation on change.
describe('with --phone-region NL', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ phoneRegion: 'NL' });
  });
  afterAll(() => t.close());

  it('+31 (0)20 555-0198, 0031 20 555 0198 and 020 555 0198 are one number that blocks the others', async () => {
    const first = await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '+31 (0)20 555-0198', Comment: 'asked twice' } });
    expect(first.status).toBe(201);
    expect(first.body.TelephoneNumber).toBe('31205550198');
    const dup = await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '0031 20 555 0198' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.details[0].message).toBe(String(first.body.Id));
    for (const asked of ['020 555 0198', '+31 20 555 0198', '0031205550198', '+31 (0)20 5550198']) {
      const check = await t.json('GET', `/cati/blacklist/Controller.Check(telephoneNumber='${encodeURIComponent(asked)}')`);
      expect(check.body, asked).toMatchObject({ value: true, MatchedId: first.body.Id });
    }
    const other = await t.json('GET', `/cati/blacklist/Controller.Check(telephoneNumber='${encodeURIComponent('020 555 0199')}')`);
    expect(other.body.value).toBe(false);
  });

  it('StartWith prefixes in national form gain the country code; Check matches them in any format', async () => {
    const prefix = await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '0900', Type: 'StartWith' } });
    expect(prefix.body.TelephoneNumber).toBe('31900');
    const check = await t.json('GET', `/cati/blacklist/Controller.Check(telephoneNumber='${encodeURIComponent('+31 900 1234567')}')`);
    expect(check.body).toMatchObject({ value: true, MatchedId: prefix.body.Id });
    expect((await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '+31 900', Type: 'StartWith' } })).status).toBe(409);
  });

  it('PUT and PATCH normalise with the item\'s Type; Import counts other formats of a stored number as duplicates', async () => {
    const item = await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '06 1111 2222' } });
    expect(item.body.TelephoneNumber).toBe('31611112222');
    const patched = await t.json('PATCH', `/cati/blacklist(${item.body.Id})`, { body: { TelephoneNumber: '06 1111 3333' } });
    expect(patched.body.TelephoneNumber).toBe('31611113333');
    const imported = await t.json('POST', '/cati/blacklist/Controller.Import', {
      body: { BlackListItems: ['+31 6 1111 3333', '0031 6 1111 4444', '06-1111-4444', { TelephoneNumber: '010', Type: 'StartWith' }, '06 CALL ME'] },
    });
    expect(imported.body).toMatchObject({ Added: 2, Duplicates: 2, Invalid: 1 });
    expect((await t.json('GET', "/cati/blacklist?$filter=TelephoneNumber eq '3110'")).body.value).toHaveLength(1);
  });

  it('letters → 400; a number that does not parse for the region is stored by the digits-only rule', async () => {
    const letters = await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '020 FLOWERS' } });
    expect(letters.status).toBe(400);
    expect(letters.body.error.message).toMatch(/only digits/);
    const short = await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '1-2-3' } });
    expect(short.status).toBe(201);
    expect(short.body.TelephoneNumber).toBe('123');
    expect((await t.json('GET', "/cati/blacklist/Controller.Check(telephoneNumber='0800 FLOWERS')")).status).toBe(400);
  });
});

describe('changing the region re-normalises the stored numbers in one transaction', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cati-region-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const numbers = async (t: TestServer) =>
    (await t.json('GET', '/cati/blacklist?$orderby=Id')).body.value.map((v: any) => [v.Id, v.TelephoneNumber, v.Type, v.Comment]);
  const auditRows = (t: TestServer) =>
    t.server.ctx.store.all<{ action: string; entity: string; entity_id: string | null; changes: string }>(
      "SELECT action, entity, entity_id, changes FROM audit_log WHERE action IN ('deleted', 'renormalised') OR entity = 'settings' ORDER BY id",
    );

  it('merges duplicates keeping the lowest Id and its Comment, audits the deleted ones, and runs once per change', async () => {
    // Stored without a region: three spellings of one number are three items.
    let t = await startTestServer({ dataDir });
    const ids: number[] = [];
    for (const [n, comment] of [['020 555 0198', 'kept comment'], ['+31 20 555 0198', 'second'], ['0031 20 555 0198', 'third'], ['1234', 'short']]) {
      ids.push((await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: n, Comment: comment } })).body.Id);
    }
    ids.push((await t.json('POST', '/cati/blacklist', { body: { TelephoneNumber: '020', Type: 'StartWith', Comment: 'prefix' } })).body.Id);
    expect((await numbers(t)).map((n: unknown[]) => n[1])).toEqual(['0205550198', '31205550198', '0031205550198', '1234', '020']);
    await t.close();

    t = await startTestServer({ dataDir, phoneRegion: 'NL' });
    expect(await numbers(t)).toEqual([
      [ids[0], '31205550198', 'Equal', 'kept comment'],
      [ids[3], '1234', 'Equal', 'short'],
      [ids[4], '3120', 'StartWith', 'prefix'],
    ]);
    const audit = await auditRows(t);
    expect(audit.filter((a) => a.action === 'deleted').map((a) => [Number(a.entity_id), JSON.parse(a.changes).MergedInto])).toEqual([
      [ids[1], ids[0]],
      [ids[2], ids[0]],
    ]);
    expect(JSON.parse(audit.find((a) => a.action === 'renormalised')!.changes)).toEqual({ PhoneRegion: 'NL', Updated: 2, Merged: 2 });
    expect(JSON.parse(audit.find((a) => a.entity === 'settings')!.changes)).toEqual({ PhoneRegion: [null, 'NL'] });
    const before = audit.length;
    await t.close();

    t = await startTestServer({ dataDir, phoneRegion: 'NL' }); // same region: nothing to do
    expect(await auditRows(t)).toHaveLength(before);
    await t.close();

    t = await startTestServer({ dataDir, phoneRegion: 'DE' }); // international digits stay what they are
    expect((await numbers(t)).map((n: unknown[]) => n[1])).toEqual(['31205550198', '1234', '3120']);
    expect(JSON.parse((await auditRows(t)).at(-1)!.changes)).toEqual({ PhoneRegion: ['NL', 'DE'] });
    await t.close();
  });
});

describe('the command line', () => {
  const serve = (...args: string[]) =>
    spawnSync(process.execPath, [...CLI, 'serve', '--port', '0', ...args], { encoding: 'utf8', cwd: ROOT, timeout: 30_000 });

  it('refuses an unknown --phone-region and a malformed --allowed-hosts with exit 2 and a clear line', () => {
    const region = serve('--phone-region', 'XX');
    expect(region.status).toBe(2);
    expect(region.stderr).toMatch(/--phone-region must be an ISO 3166 alpha-2 country code/);
    const hosts = serve('--allowed-hosts', 'http://example.org/');
    expect(hosts.status).toBe(2);
    expect(hosts.stderr).toMatch(/--allowed-hosts: 'http:\/\/example.org\/' is not a host name/);
  });
});
