// Builds the Electron main process: tsc compiles main/ and the server it imports into dist/ (ESM; preload as
// CommonJS), then copies the server's non-TypeScript files (SQL migrations, …) beside the compiled code, and
// points `new URL('./x.ts', import.meta.url)` (worker entries, which tsc's import rewriting does not touch)
// at the compiled `./x.js`.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** Runs tsc for main/ and copies server assets; returns tsc's exit status. */
export function buildMain() {
  // A fresh output: a file removed or renamed in the sources (a migration, above all) must not linger in dist/.
  for (const dir of ['main', 'server', 'common']) rmSync(join(root, 'dist', dir), { recursive: true, force: true });
  // --noCheck: the build emits (the same files as a checking build) and leaves the type checks to `npm run
  // typecheck` (`npm run check`, and `npm run dist` before it packages): half the time of a `npm start` after a pull.
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'main', 'tsconfig.json'), '--noCheck'], { stdio: 'inherit', cwd: root });
  copyAssets(join(root, 'server'), join(root, 'dist', 'server'));
  rewriteModuleUrls(join(root, 'dist'));
  return result.status ?? 1;
}

const TS_URL = /new URL\((['"])(\.{1,2}\/[^'"]+)\.ts\1, import\.meta\.url\)/g;

function rewriteModuleUrls(dir) {
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) {
      if (name !== 'renderer') rewriteModuleUrls(file);
    } else if (name.endsWith('.js')) {
      const code = readFileSync(file, 'utf8');
      const next = code.replace(TS_URL, (_m, q, path) => `new URL(${q}${path}.js${q}, import.meta.url)`);
      if (next !== code) writeFileSync(file, next);
    }
  }
}

function copyAssets(from, to) {
  for (const name of readdirSync(from)) {
    const source = join(from, name);
    if (statSync(source).isDirectory()) copyAssets(source, join(to, name));
    else if (!/\.[cm]?ts$/.test(name)) {
      mkdirSync(to, { recursive: true });
      cpSync(source, join(to, name));
    }
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exit(buildMain());
