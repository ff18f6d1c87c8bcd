// `npm test`: the renderer build the end-to-end tests load (dist/renderer), then `vitest run` (the unit, API and
// end-to-end tests); arguments are passed to `vitest run`. The static checks are `npm run check`
// (scripts/checks.mjs: type checks, eslint, the layer rules), which CI runs beside this.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { report, RENDERER_BUILD, run } from './checks.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

/** Runs `vitest run` with this script's arguments; resolves with its exit status. */
function runVitest() {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [vitest, 'run', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
    child.on('error', (err) => (console.error(err), resolve(1)));
    child.on('close', (status) => resolve(status ?? 1));
  });
}

const built = await run(RENDERER_BUILD);
report(built);
if (built.status !== 0) {
  console.error('\nThe renderer build failed: the tests did not run.');
  process.exit(1);
}
process.exit(await runVitest());
