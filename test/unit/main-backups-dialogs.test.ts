import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newSqliteDatabase } from '../../server/db/native-binding.ts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fake } from '../helpers/fake-electron.ts';
import { fillVolume, mountSmallVolume, smallVolumeUnavailable, unmountSmallVolume } from '../helpers/small-volume.ts';

vi.mock('electron', async () => (await import('../helpers/fake-electron.ts')).electronModule());

const { runDesktop } = await import('../../main/run-desktop.ts');
const { CHANNELS } = await import('../../main/bridge-api.ts');
const { autoBackupTick } = await import('../../main/backup-actions.ts');
const { saveDownload } = await import('../../main/file-dialogs.ts');
const { verifyDatabaseFile } = await import('../../server/db/backup.ts');
type Desktop = NonNullable<Awaited<ReturnType<typeof runDesktop>>>;
/** Whether a small file system can be mounted for the full-disk export (docs/deployment.md#reliability). */
const noVolume = smallVolumeUnavailable();

// Settings → Backups and the native save dialogs, through the bridge's IPC handlers with the fake's dialogs
// answering (docs/deployment.md#backups).
let dir: string;
/** The desktop app of the test (the streaming test runs without one). */
let desktop: Desktop;
const call = (name: keyof typeof CHANNELS, ...args: unknown[]) => fake.invoke(CHANNELS[name], `${desktop.appUrl()}/#/settings`, ...args);

async function api(method: string, path: string, body?: unknown) {
  const { baseUrl, apiKey } = desktop.session();
  const res = await fetch(`${baseUrl}${path}`, { method, headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return res;
}
const blacklistComments = async () => ((await (await api('GET', '/cati/blacklist')).json()).value as { Comment: string }[]).map((r) => r.Comment);

async function start(options: { autoBackupCheckMs?: number } = {}) {
  desktop = (await runDesktop({ userDataDir: dir, staticDir: join(dir, 'renderer'), preload: '/p.cjs', autoBackupCheckMs: 0, ...options }))!;
}

beforeEach(() => {
  fake.reset();
  dir = mkdtempSync(join(tmpdir(), 'cati-backups-'));
  mkdirSync(join(dir, 'renderer'));
  writeFileSync(join(dir, 'renderer', 'index.html'), '<!doctype html><title>CATI Supervisor</title>');
  writeFileSync(join(dir, 'settings.json'), JSON.stringify({ port: 0, exposeOnLan: false }));
});
afterEach(async () => {
  await (desktop as Desktop | undefined)?.shutdown();
  desktop = undefined as unknown as Desktop;
  rmSync(dir, { recursive: true, force: true });
});

describe('Settings → Backups', () => {
  it('backs up now into <data-dir>/backups, verified, listed and audited', async () => {
    await start();
    expect(await call('getBackups')).toEqual({ dir: join(dir, 'backups'), autoDaily: true, keep: 14, backups: [] });
    const made = await call('backupNow');
    expect(made).toMatchObject({ name: expect.stringMatching(/^cati-\d{8}T\d{6}Z\.sqlite$/), auto: false, file: join(dir, 'backups', made.name) });
    expect(verifyDatabaseFile(made.file).migrations).toBeGreaterThan(0);
    expect((await call('getBackups')).backups).toEqual([made]);
    const audit = await desktop.server!.running.ctx.store.all<{ changes: string }>("SELECT action, changes FROM audit_log WHERE action = 'backup'");
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0]!.changes).file).toBe(made.file);
  });

  it('makes the automatic backup once a day, keeps the last 14, never deletes backups made on request, and can be turned off', async () => {
    await start();
    const onRequest = await call('backupNow');
    const day0 = Date.parse('2026-01-01T03:00:00Z');
    for (let i = 0; i < 16; i++) {
      expect(await autoBackupTick(desktop, new Date(day0 + i * 86_400_000)), `day ${i}`).not.toBeNull();
      expect(await autoBackupTick(desktop, new Date(day0 + i * 86_400_000 + 3_600_000)), `day ${i}, an hour later`).toBeNull();
    }
    const { backups } = await call('getBackups');
    const auto = backups.filter((b: { auto: boolean }) => b.auto).map((b: { name: string }) => b.name);
    expect(auto).toHaveLength(14);
    expect(auto.at(0)).toBe('cati-auto-20260116T030000Z.sqlite');
    expect(auto.at(-1)).toBe('cati-auto-20260103T030000Z.sqlite');
    expect(backups.some((b: { name: string }) => b.name === onRequest.name)).toBe(true);

    expect((await call('setAutoBackup', false)).autoDaily).toBe(false);
    expect(await autoBackupTick(desktop, new Date(day0 + 30 * 86_400_000))).toBeNull();
    expect(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')).autoBackup).toBe(false);
    await expect(call('setAutoBackup', 'yes')).rejects.toThrow('on must be true or false');
  });

  it('runs the automatic check on the app’s own timer', async () => {
    await start({ autoBackupCheckMs: 25 });
    await vi.waitFor(() => expect(readdirSync(join(dir, 'backups')).some((n) => n.startsWith('cati-auto-'))).toBe(true), { timeout: 10_000, interval: 50 });
  });

  it('refuses a restore file that is not a database of ours, replacing nothing', async () => {
    await start();
    await api('POST', '/cati/blacklist', { TelephoneNumber: '0201112233', Comment: 'keep me' });
    writeFileSync(join(dir, 'notes.sqlite'), 'just some text, not a database at all');
    const foreign = newSqliteDatabase(join(dir, 'foreign.sqlite'));
    foreign.exec('CREATE TABLE t (x)');
    foreign.close();

    fake.state.openPaths.push(join(dir, 'notes.sqlite'), join(dir, 'foreign.sqlite'), null);
    await expect(call('chooseRestoreFile')).rejects.toThrow(/is not a CATI Supervisor database \(not an SQLite file\)/);
    await expect(call('chooseRestoreFile')).rejects.toThrow(/is not a CATI Supervisor database \(it has no schema_migrations table\)/);
    expect(await call('chooseRestoreFile')).toBeNull(); // cancelled
    await expect(call('restoreChosenFile')).rejects.toThrow('Choose a backup file first');
    expect(await blacklistComments()).toEqual(['keep me']);
    expect(readdirSync(dir).filter((n) => n.includes('before-restore'))).toEqual([]);
    expect(fake.state.app.relaunchCalls).toEqual([]);
  });

  it('restores a chosen backup after the confirm step: keeps the replaced database and restarts the app', async () => {
    await start();
    await api('POST', '/cati/blacklist', { TelephoneNumber: '0201112233', Comment: 'in the backup' });
    const made = await call('backupNow');
    await api('POST', '/cati/blacklist', { TelephoneNumber: '0204445566', Comment: 'after the backup' });

    fake.state.openPaths.push(made.file);
    const candidate = await call('chooseRestoreFile');
    expect(candidate).toMatchObject({ file: made.file, migrations: expect.any(Number) });
    expect(fake.state.dialogs.at(-1)!.options.defaultPath).toBe(join(dir, 'backups'));
    expect(fake.state.app.relaunchCalls).toEqual([]); // choosing alone changes nothing

    await call('restoreChosenFile');
    expect(fake.state.app.relaunchCalls).toHaveLength(1);
    expect(fake.state.app.exitCodes).toEqual([0]);
    const kept = readdirSync(dir).filter((n) => /^cati\.sqlite\.before-restore-\d{8}T\d{6}Z$/.test(n));
    expect(kept).toHaveLength(1);
    const restored = newSqliteDatabase(join(dir, 'cati.sqlite'), { readonly: true });
    const keptDb = newSqliteDatabase(join(dir, kept[0]!), { readonly: true });
    try {
      expect(restored.prepare('SELECT comment FROM blacklist').pluck().all()).toEqual(['in the backup']);
      expect(keptDb.prepare('SELECT comment FROM blacklist ORDER BY id').pluck().all()).toEqual(['in the backup', 'after the backup']);
    } finally {
      restored.close();
      keptDb.close();
    }
  });

  it('is refused in client mode (a server’s backups are made on its own machine)', async () => {
    await start();
    // The local backend goes back afterwards, so the shutdown closes its server (else it outlives the file).
    const local = desktop.backend;
    desktop.backend = { kind: 'remote', proxy: { localUrl: desktop.appUrl()!, sessionKey: 'x', remoteUrl: 'https://10.0.0.5:4100', fingerprint: null, close: async () => {} } };
    try {
      await expect(call('backupNow')).rejects.toThrow(/made on the server’s own machine/);
      await expect(call('chooseRestoreFile')).rejects.toThrow(/made on the server’s own machine/);
    } finally {
      desktop.backend = local;
    }
  });
});

describe('Native save dialogs: exports streamed by main into the chosen file', () => {
  it('asks where, then writes the API’s answer to that file; Cancel writes nothing', async () => {
    await start();
    await api('POST', '/cati/blacklist', { TelephoneNumber: '0201112233', Comment: 'exported' });
    const target = join(dir, 'out', 'blacklist.json');
    mkdirSync(join(dir, 'out'));
    fake.state.savePaths.push(target, null);
    expect(await call('saveDownload', '/cati/blacklist?$top=10', 'blacklist.json')).toBe(target);
    expect(fake.state.dialogs.at(-1)!.options).toMatchObject({ defaultPath: 'blacklist.json', filters: [{ name: 'JSON', extensions: ['json'] }, { name: 'All files', extensions: ['*'] }] });
    expect(JSON.parse(readFileSync(target, 'utf8')).value.map((r: { Comment: string }) => r.Comment)).toEqual(['exported']);

    expect(await call('saveDownload', '/cati/blacklist', '../../etc/passwd')).toBeNull(); // cancelled
    expect(fake.state.dialogs.at(-1)!.options.defaultPath).toBe('passwd'); // no directories from the page
    expect(readdirSync(join(dir, 'out'))).toEqual(['blacklist.json']);
  });

  it('refuses paths outside the API, and leaves no file when the export fails', async () => {
    await start();
    for (const path of ['https://evil.example/x', '/healthz', '//evil.example/cati/x', 'cati/blacklist']) {
      await expect(call('saveDownload', path, 'x.csv'), path).rejects.toThrow('Only API exports can be downloaded');
    }
    const target = join(dir, 'failed.json');
    fake.state.savePaths.push(target);
    await expect(call('saveDownload', '/cati/blacklist?$filter=nonsense%20eq', 'failed.json')).rejects.toThrow(/\(HTTP 400\)$/);
    expect(existsSync(target)).toBe(false);
    expect(existsSync(`${target}.partial`)).toBe(false);
  });

  it.skipIf(noVolume !== undefined)(`an export to a full disk fails saying so, and leaves no file ${noVolume ? `(skipped: ${noVolume})` : ''}`, async () => {
    await start();
    const items = Array.from({ length: 5000 }, (_, i) => `0301${String(i).padStart(7, '0')}`);
    expect((await api('POST', '/cati/blacklist/Controller.Import', { BlackListItems: items })).status).toBe(200);
    const volume = mountSmallVolume(4).dir!; // 4 MB
    try {
      const target = join(volume, 'blacklist.csv');
      fillVolume(volume, join(volume, 'filler'), 16 * 1024);
      fake.state.savePaths.push(target);
      await expect(call('saveDownload', '/cati/blacklist?$format=csv', 'blacklist.csv')).rejects.toThrow(/disk is full/);
      expect(readdirSync(volume)).toEqual(['filler']);
      rmSync(join(volume, 'filler'), { force: true });
      fake.state.savePaths.push(target);
      expect(await call('saveDownload', '/cati/blacklist?$format=csv', 'blacklist.csv')).toBe(target);
    } finally {
      unmountSmallVolume(volume);
    }
  });

  it('writes what arrives as it arrives (never the whole export in memory), and removes the partial file when the answer breaks off', async () => {
    let answer!: ServerResponse;
    let arrivedOnce!: () => void;
    const arrived = new Promise<void>((resolve) => (arrivedOnce = resolve));
    const stub: Server = createServer((_req, res) => {
      answer = res;
      res.writeHead(200, { 'Content-Type': 'text/csv' });
      res.write('first part\n');
      arrivedOnce();
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    const access = { baseUrl: `http://127.0.0.1:${(stub.address() as AddressInfo).port}`, apiKey: 'k' };
    try {
      const target = join(dir, 'big.csv');
      fake.state.savePaths.push(target, join(dir, 'broken.csv'));
      const saving = saveDownload(null, access, '/cati/big?$format=csv', 'big.csv');
      await arrived;
      // The first part is on disk while the answer is still open.
      await vi.waitFor(() => expect(readFileSync(`${target}.partial`, 'utf8')).toBe('first part\n'), { timeout: 10_000, interval: 20 });
      expect(existsSync(target)).toBe(false);
      answer.end('second part\n');
      expect(await saving).toBe(target);
      expect(readFileSync(target, 'utf8')).toBe('first part\nsecond part\n');
      expect(statSync(target).size).toBe(23);

      const broken = saveDownload(null, access, '/cati/big?$format=csv', 'broken.csv');
      await vi.waitFor(() => expect(existsSync(join(dir, 'broken.csv.partial'))).toBe(true), { timeout: 10_000, interval: 20 });
      answer.destroy();
      await expect(broken).rejects.toThrow(/could not be saved to .*broken\.csv/);
      expect(existsSync(join(dir, 'broken.csv'))).toBe(false);
      expect(existsSync(join(dir, 'broken.csv.partial'))).toBe(false);
    } finally {
      stub.closeAllConnections();
      stub.close();
    }
  });

  it('saves bytes the page made (a table as CSV) where the user chose', async () => {
    await start();
    const target = join(dir, 'table.csv');
    fake.state.savePaths.push(target);
    expect(await call('saveFile', 'table.csv', new TextEncoder().encode('a,b\r\n1,2\r\n'))).toBe(target);
    expect(readFileSync(target, 'utf8')).toBe('a,b\r\n1,2\r\n');
    await expect(call('saveFile', 'table.csv', 'not bytes')).rejects.toThrow('The content must be bytes');
  });
});
