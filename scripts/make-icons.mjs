// Makes renderer/public/icon.png and favicon.ico from renderer/public/icon.svg with Chromium: `node scripts/make-icons.mjs renderer/public`.
// Renders renderer/public/icon.svg at several sizes with Chromium and writes icon.png (256) and favicon.ico (16, 32, 48, PNG entries).
import { readFileSync, writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
const dir = process.argv[2];
const svg = readFileSync(`${dir}/icon.svg`, 'utf8');
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
const pngs = {};
for (const size of [16, 32, 48, 256]) {
  const page = await browser.newPage({ viewport: { width: size, height: size } });
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg.replace('width="64" height="64"', `width="${size}" height="${size}"`)}</body></html>`);
  pngs[size] = await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } });
  await page.close();
}
await browser.close();
writeFileSync(`${dir}/icon.png`, pngs[256]);
const sizes = [16, 32, 48];
const header = Buffer.alloc(6); header.writeUInt16LE(0, 0); header.writeUInt16LE(1, 2); header.writeUInt16LE(sizes.length, 4);
let offset = 6 + 16 * sizes.length;
const entries = sizes.map((s) => { const e = Buffer.alloc(16); e.writeUInt8(s, 0); e.writeUInt8(s, 1); e.writeUInt16LE(1, 4); e.writeUInt16LE(32, 6); e.writeUInt32LE(pngs[s].length, 8); e.writeUInt32LE(offset, 12); offset += pngs[s].length; return e; });
writeFileSync(`${dir}/favicon.ico`, Buffer.concat([header, ...entries, ...sizes.map((s) => pngs[s])]));
