/**
 * Screenshots of the unsubscribe confirm and result pages at a phone and a desktop width, into
 * docs/screenshots/. Run: node --import tsx scripts/screenshot-unsubscribe.ts
 * Starts its own server on 127.0.0.1:0 over a temp data dir; needs Chromium at /usr/bin/chromium.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { defaultConfig } from '../server/config.ts';
import { startServer } from '../server/server.ts';

const OUT = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'screenshots');
const API_KEY = 'screenshot-key-0123456789';
const VIEWPORTS = [
  { name: 'phone', width: 390, height: 760, deviceScaleFactor: 2 },
  { name: 'desktop', width: 1280, height: 720, deviceScaleFactor: 1 },
];

const dataDir = mkdtempSync(join(tmpdir(), 'unsub-shots-'));
const server = await startServer(defaultConfig({ host: '127.0.0.1', port: 0, dataDir, apiKey: API_KEY }));
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const api = async (method: string, path: string, body: unknown) => {
    const res = await fetch(server.url + path, {
      method,
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${await res.text()}`);
    return res.json() as Promise<any>;
  };
  await api('PUT', '/optout/settings', { companyName: 'Acme Research' });
  const { id: listId } = await api('POST', '/optout/lists', { projectId: 'p12345678' });
  mkdirSync(OUT, { recursive: true });

  for (const vp of VIEWPORTS) {
    const { url } = await api('POST', `/optout/lists/${listId}/unsubscribe-links`, { emailAddress: `jane.doe.${vp.name}@example.com` });
    const context = await browser.newContext({ viewport: { width: vp.width, height: vp.height }, deviceScaleFactor: vp.deviceScaleFactor });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
    });
    await page.goto(url);
    await page.screenshot({ path: join(OUT, `unsubscribe-confirm-${vp.name}.png`) });
    await Promise.all([page.waitForURL(url), page.click('button[type=submit]')]);
    await page.waitForSelector('text=You are unsubscribed');
    await page.screenshot({ path: join(OUT, `unsubscribe-result-${vp.name}.png`) });
    if ((await context.cookies()).length > 0) problems.push('a cookie was set');
    await context.close();
    if (problems.length > 0) throw new Error(`${vp.name}: ${problems.join('; ')}`);
    process.stdout.write(`${vp.name}: confirm and result pages saved\n`);
  }
} finally {
  await browser.close();
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}
