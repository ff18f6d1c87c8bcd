/**
 * Screenshots of the live floor for `npm run screenshots`: a server with the `--demo` data and the `--demo-live`
 * dialer (as `npm start -- --demo --demo-live` runs), the Floor screen and the wallboard in Chromium.
 */
import { join } from 'node:path';
import { startTestServer } from '../helpers/server.ts';
import { launchChromium, RENDERER_DIR, uiLinkFragment } from './ui-harness.ts';

/** Writes floor.png and wallboard.png into `out`. */
export async function screenshotFloor(out: string): Promise<void> {
  const server = await startTestServer({ staticDir: RENDERER_DIR, demo: true, demoLive: true });
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${server.url}${await uiLinkFragment(server)}`);
    await page.getByRole('heading', { name: 'Floor', level: 1 }).waitFor();
    await page.locator('.live-state', { hasText: /^Live$/ }).waitFor();
    await page.locator('.floor-table tbody tr.level-over').first().waitFor();
    await page.screenshot({ path: join(out, 'floor.png') });
    // The wallboard on a TV-sized window: a page of rows at a time.
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.getByRole('link', { name: 'Wallboard view' }).click();
    await page.locator('.wallboard .floor-table tbody tr').nth(10).waitFor();
    await page.getByTestId('wall-page').waitFor();
    await page.screenshot({ path: join(out, 'wallboard.png') });
  } finally {
    await browser.close();
    await server.close();
  }
}
