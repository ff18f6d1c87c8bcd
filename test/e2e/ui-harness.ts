import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { watchPage } from './page-log.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const RENDERER_DIR = join(ROOT, 'dist', 'renderer');
/**
 * Debian's Chromium for the tests: its headless shell (`chromium-headless-shell`, the same Blink and V8 without the
 * browser's UI layers, what Playwright itself runs headless tests in) when installed, else the full browser in
 * headless mode. Measured over the same 8 pages with axe-core: 8.8–9.4 s of CPU in the shell against 15–18 s in the
 * full browser (axe-core's run 0.5 s against 1.4 s). CHROMIUM_PATH chooses another binary.
 */
const SHELL = '/usr/bin/chromium-headless-shell';
export const CHROMIUM = process.env.CHROMIUM_PATH ?? (existsSync(SHELL) ? SHELL : '/usr/bin/chromium');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Builds dist/renderer once when it is missing (`npm test` builds it before vitest runs). */
export function ensureRendererBuilt(): void {
  if (existsSync(join(RENDERER_DIR, 'index.html'))) return;
  const vite = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('vite build of the renderer failed');
}

/** Debian's Chromium in headless mode (`npx playwright install` cannot run here). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install chromium-headless-shell (or chromium, or set CHROMIUM_PATH)`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/**
 * The `/#token=…` part of a fresh UI link for `server`, as `npm run serve` prints it: a single-use token the page
 * exchanges for a session key on its first load (docs/people.md#ui-sessions). Each page needs its own.
 */
export async function uiLinkFragment(server: TestServer): Promise<string> {
  return `/#token=${await server.server.ctx.keys.ui.mintToken()}`;
}

export interface UiHarness {
  browser: Browser;
  server: TestServer;
  /**
   * Opens the UI the way the headless server's link does (a fresh `/#token=…` each time), then goes to `#/<screen>`;
   * `prepare` sets up the new browser context first (permissions, init scripts, routes).
   */
  open(screen: string, prepare?: (context: BrowserContext) => Promise<void>): Promise<Page>;
  close(): Promise<void>;
}

/**
 * One Chromium per vitest worker process, shared by the e2e files it runs one after another (files share their
 * worker's modules: vitest.config.ts): launching it cost each file a second or two of CPU. Every page still gets a
 * browser context of its own (its own cookies, storage and cache), and a harness closes every context when it
 * closes, so no file sees another's pages. A browser that disconnected (crashed) is launched again.
 */
let sharedBrowser: Promise<Browser> | undefined;

async function workerBrowser(): Promise<Browser> {
  const current = sharedBrowser ? await sharedBrowser.catch(() => undefined) : undefined;
  if (current?.isConnected()) return current;
  sharedBrowser = launchChromium();
  return sharedBrowser;
}

/** A real server over a temp data dir serving the built renderer, and a browser to drive it. */
export async function startUi(): Promise<UiHarness> {
  ensureRendererBuilt();
  const server = await startTestServer({ staticDir: RENDERER_DIR });
  const browser = await workerBrowser();
  return {
    browser,
    server,
    async open(screen, prepare) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, acceptDownloads: true });
      // Half the test's time: a step that waits for something that never comes fails naming its locator, rather
      // than the whole test timing out with no word of where it stood (Playwright's default equals the test's 30 s).
      context.setDefaultTimeout(15_000);
      await prepare?.(context);
      const page = await context.newPage();
      watchPage(page);
      await page.goto(`${server.url}${await uiLinkFragment(server)}`);
      await page.getByRole('navigation', { name: 'Screens' }).waitFor();
      await page.evaluate((s) => (window.location.hash = `#/${s}`), screen);
      return page;
    },
    async close() {
      // Every context of the shared browser is this file's (the worker runs one file at a time).
      await Promise.all(browser.contexts().map((context) => context.close()));
      await server.close();
    },
  };
}
