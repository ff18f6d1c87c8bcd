// `npm test`: the static checks of scripts/checks.mjs and the vitest run, overlapped. The type checks and lint are
// CPU-bound single processes while the tests mostly wait on servers, databases and Chromium, so on a 2-core machine
// running them one after the other left a core idle for the checks' 30 s to 2 min. vitest starts as soon as the
// renderer build it needs (the e2e tests load dist/renderer) has succeeded; the other checks print their output
// whole when they end, and the exit status is non-zero when a check or the tests failed. Arguments are passed to
// `vitest run`.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHECKS, startChecks } from './checks.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

const checks = startChecks();
const build = checks[CHECKS.findIndex(([name]) => name === 'build:renderer')];

/** Runs `vitest run` with this script's arguments; resolves with its exit status. */
function runVitest() {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [vitest, 'run', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
    child.on('error', (err) => (console.error(err), resolve(1)));
    child.on('close', (status) => resolve(status ?? 1));
  });
}

const built = await build;
const tests = built.status === 0 ? await runVitest() : (console.error('\nThe renderer build failed: the tests did not run.'), 1);
const failed = (await Promise.all(checks)).filter((r) => r.status !== 0).map((r) => r.name);
if (tests !== 0) failed.push('tests');
if (failed.length) {
  console.error(`\nFailed: ${failed.join(', ')}`);
  process.exit(1);
}
