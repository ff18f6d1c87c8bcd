// `npm run check`: the static checks — the two type checks (tsc for server/main/test/scripts, vue-tsc for the
// renderer), eslint and the layer rules (scripts/lint-rules.mjs) — run at the same time instead of one after
// another. Each is one single-threaded process, so on a multi-core machine they overlap; each one's output is printed
// whole when it ends, and the exit status is non-zero when any failed. The type checks are incremental (their build
// info under .tmp/, which git ignores) and eslint keeps a cache there: in a fresh clone they check everything; run
// again they re-check only what changed. CI (.ci/run) runs them beside `npm test`, which runs the tests alone.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const bin = (pkg, file) => join(dirname(require.resolve(`${pkg}/package.json`)), file);

/** Each check: its name, the script node runs, its arguments. */
export const CHECKS = [
  ['typecheck (server)', bin('typescript', 'bin/tsc'), ['--noEmit', '--incremental', '--tsBuildInfoFile', '.tmp/tsc.tsbuildinfo', '-p', 'tsconfig.json']],
  ['typecheck (renderer)', bin('vue-tsc', 'bin/vue-tsc.js'), ['--noEmit', '--incremental', '--tsBuildInfoFile', '.tmp/vue-tsc.tsbuildinfo', '-p', 'renderer/tsconfig.json']],
  // The cache (by content, under .tmp/) lets a re-run lint only the files that changed; a fresh clone lints all.
  ['lint', bin('eslint', 'bin/eslint.js'), ['--max-warnings', '0', '--cache', '--cache-strategy', 'content', '--cache-location', '.tmp/eslintcache', '.']],
  // The layer rules (dependency-cruiser), dead code (knip) and the textual rules (docs/architecture.md#rules).
  ['lint:rules', join(root, 'scripts/lint-rules.mjs'), []],
];

/** The renderer build the end-to-end tests load (dist/renderer), as `npm test` runs it before vitest. */
export const RENDERER_BUILD = ['build:renderer', bin('vite', 'bin/vite.js'), ['build']];

/** Runs one check to its end; resolves with its name, exit status, output and seconds taken. */
export function run([name, script, args]) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: root, env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (err) => resolve({ name, status: 1, output: String(err), seconds: 0 }));
    child.on('close', (status) => resolve({ name, status: status ?? 1, output, seconds: (Date.now() - started) / 1000 }));
  });
}

/** Prints a finished check's name, status, time and whole output. */
export function report(r) {
  process.stdout.write(`\n> ${r.name}: ${r.status === 0 ? 'ok' : `FAILED (exit ${r.status})`} in ${r.seconds.toFixed(1)} s\n${r.output}`);
}

/** Starts every check at once; one promise per check, in CHECKS order, each printed as it ends. */
export function startChecks() {
  return CHECKS.map((check) => run(check).then((r) => (report(r), r)));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const results = await Promise.all(startChecks());
  const failed = results.filter((r) => r.status !== 0).map((r) => r.name);
  if (failed.length) {
    console.error(`\nFailed: ${failed.join(', ')}`);
    process.exit(1);
  }
}
