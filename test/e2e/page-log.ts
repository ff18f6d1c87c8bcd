import type { Page } from 'playwright-core';

/**
 * What each open page of the e2e harness did lately (its API answers, failed requests, console errors, uncaught
 * errors), kept so that a failing test can say what the browser showed and heard at that moment
 * (test/setup/e2e-failure-report.ts): a test that times out on CI otherwise names no step, and cannot be run again
 * there. Only types come from playwright, so the unit and API files that load the setup file load nothing more.
 */
const KEPT = 30;
const pages = new Map<Page, { opened: number; lines: string[] }>();

export function watchPage(page: Page): void {
  const entry = { opened: Date.now(), lines: [] as string[] };
  pages.set(page, entry);
  const add = (line: string) => {
    entry.lines.push(`+${((Date.now() - entry.opened) / 1000).toFixed(1)} s ${line}`);
    if (entry.lines.length > KEPT) entry.lines.shift();
  };
  const path = (url: string) => url.replace(/^https?:\/\/[^/]+/, '').replace(/#token=[^&]*/, '#token=…');
  page.on('response', (r) => {
    if (r.request().resourceType() === 'fetch' || r.status() >= 400) add(`${r.request().method()} ${path(r.url())} → ${r.status()}`);
  });
  page.on('requestfailed', (r) => add(`${r.method()} ${path(r.url())} failed: ${r.failure()?.errorText ?? '?'}`));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') add(`console.${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (err) => add(`uncaught: ${err.message}`));
  page.on('close', () => pages.delete(page));
}

/** Every open page: its address, the alerts and notices it shows, and what it did last. Empty when none is open. */
export async function describeOpenPages(): Promise<string> {
  const parts: string[] = [];
  for (const [page, { lines }] of pages) {
    if (page.isClosed()) continue;
    // A page that no longer answers (the test timed out because it hung) must not hang the report too.
    const shown = await Promise.race([
      page.evaluate(() => ({
        alerts: [...document.querySelectorAll('[role=alert]')].map((e) => e.textContent?.trim()),
        notices: [...document.querySelectorAll('.notice')].map((e) => e.textContent?.trim()),
        status: [...document.querySelectorAll('[role=status]')].map((e) => e.textContent?.trim()).filter(Boolean),
      })),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 3000)),
    ]).catch((err: Error) => ({ error: err.message }));
    parts.push(
      [`page ${page.url().replace(/#token=[^&]*/, '#token=…')}`, `shown: ${JSON.stringify(shown ?? 'the page did not answer within 3 s')}`, 'last requests and messages:', ...lines.map((l) => `  ${l}`)].join('\n'),
    );
  }
  return parts.join('\n\n');
}
