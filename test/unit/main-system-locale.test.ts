/** The desktop bridge tells the page the OS locale, from which the screens' language is proposed (docs/screens.md#language). */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { fake } from '../helpers/fake-electron.ts';

vi.mock('electron', async () => (await import('../helpers/fake-electron.ts')).electronModule());

const { runDesktop } = await import('../../main/run-desktop.ts');
const { CHANNELS } = await import('../../main/bridge-api.ts');
type Desktop = NonNullable<Awaited<ReturnType<typeof runDesktop>>>;

let dir: string;
let desktop: Desktop | undefined;

beforeEach(() => {
  fake.reset();
  dir = mkdtempSync(join(tmpdir(), 'cati-locale-'));
  mkdirSync(join(dir, 'renderer'));
  writeFileSync(join(dir, 'renderer', 'index.html'), '<!doctype html><title>CATI Supervisor</title>');
  writeFileSync(join(dir, 'settings.json'), JSON.stringify({ port: 0, exposeOnLan: false }));
});
afterEach(async () => {
  await desktop?.shutdown();
  desktop = undefined;
  rmSync(dir, { recursive: true, force: true });
});

it('answers the OS locale to our own page only', async () => {
  fake.electron.app.systemLocale = 'nl-NL';
  desktop = (await runDesktop({ userDataDir: dir, staticDir: join(dir, 'renderer'), preload: '/p.cjs', autoBackupCheckMs: 0 }))!;
  expect(await fake.invoke(CHANNELS.getSystemLocale, `${desktop.appUrl()}/#/settings`)).toBe('nl-NL');
  await expect(fake.invoke(CHANNELS.getSystemLocale, 'https://evil.example/')).rejects.toThrow(/Refused/);
});
