import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fake } from '../helpers/fake-electron.ts';

vi.mock('electron', async () => (await import('../helpers/fake-electron.ts')).electronModule());

const { DesktopApp } = await import('../../main/desktop-app.ts');
const { phoneRegion, regionFromLocale } = await import('../../server/cati/phone-region-setting.ts');
const { applyPhoneRegion } = await import('../../server/cati/blacklist-region.ts');

// docs/cati-api.md#phone-region: the desktop proposes the phone region from the OS locale at first start, once; a stored one stands.
let userDataDir: string;
let staticDir: string;
const apps: InstanceType<typeof DesktopApp>[] = [];
const newApp = () => {
  const app = new DesktopApp({ userDataDir, staticDir, preload: '/app/dist/main/preload.cjs', startTimeoutMs: 10_000, autoBackupCheckMs: 0 });
  apps.push(app);
  return app;
};

beforeEach(() => {
  userDataDir = mkdtempSync(join(tmpdir(), 'cati-desktop-region-'));
  staticDir = join(userDataDir, 'renderer');
  mkdirSync(staticDir);
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>CATI Supervisor</title>');
  writeFileSync(join(userDataDir, 'settings.json'), JSON.stringify({ port: 0, exposeOnLan: false }));
  fake.reset();
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.shutdown();
  rmSync(userDataDir, { recursive: true, force: true });
});

describe('the desktop proposes the phone region from the OS locale', () => {
  it('reads the region of a locale (or its likely one), null without a numbering plan', () => {
    expect(regionFromLocale('nl-NL')).toBe('NL');
    expect(regionFromLocale('de_AT')).toBe('AT');
    expect(regionFromLocale('nl')).toBe('NL');
    expect(regionFromLocale('en-001')).toBeNull();
    expect(regionFromLocale('')).toBeNull();
  });

  it('stores it at first start, once; a later change by the user stands at the next start', async () => {
    fake.state.app.systemLocale = 'nl-NL';
    let app = newApp();
    expect(await app.start()).toBe(true);
    expect(await phoneRegion(app.server!.running.ctx.store)).toBe('NL');
    expect(JSON.parse(readFileSync(join(userDataDir, 'settings.json'), 'utf8')).phoneRegionProposed).toBe(true);
    await applyPhoneRegion(app.server!.running.ctx.store, null); // the user chose "none" in Settings
    await app.shutdown();

    fake.state.app.systemLocale = 'de-DE';
    app = newApp();
    expect(await app.start()).toBe(true);
    expect(await phoneRegion(app.server!.running.ctx.store)).toBeNull();
  });

  it('never overrides a region the database already holds', async () => {
    fake.state.app.systemLocale = 'fr-FR';
    writeFileSync(join(userDataDir, 'settings.json'), JSON.stringify({ port: 0, exposeOnLan: false }));
    const first = newApp();
    expect(await first.start()).toBe(true);
    await applyPhoneRegion(first.server!.running.ctx.store, 'BE');
    await first.shutdown();
    writeFileSync(join(userDataDir, 'settings.json'), JSON.stringify({ port: 0, exposeOnLan: false })); // as if settings.json were lost
    const again = newApp();
    expect(await again.start()).toBe(true);
    expect(await phoneRegion(again.server!.running.ctx.store)).toBe('BE');
  });
});
