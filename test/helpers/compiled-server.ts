/**
 * The server compiled to plain JavaScript once per vitest run (test/global-setup.ts), for the tests that spawn
 * `cli.ts` as a child process. Under `node --import tsx` every spawn loads tsx and esbuild and transpiles the
 * server's modules again (and each worker thread it starts registers tsx once more): ~1.5 s of CPU per process
 * on this machine, which the CLI tests pay dozens of times. The same sources, transpiled file by file with
 * esbuild (type-only syntax removed, nothing bundled, no behaviour changed), start in a fraction of that.
 * `npm run serve` itself (tsx) keeps its own test in cli.test.ts; scripts/build-main.mjs's tsc build keeps
 * main-build.test.ts.
 *
 * Layout of the output directory, so the compiled CLI finds what `server/cli.ts` finds in the project:
 *   server/…        the transpiled modules (relative `.ts` specifiers rewritten to `.js`) and the SQL migrations
 *   common/…        the transpiled code the server shares with the renderer
 *   package.json    the project's ("type": "module"; the app root native-binding.ts looks for)
 *   node_modules →  the project's node_modules (symlink)
 *   dist →          the project's dist (symlink: `serve` answers the UI from dist/renderer)
 */
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

/** A relative import/export specifier or `new URL(…, import.meta.url)` target ending in `.ts`. */
const TS_SPECIFIER = /((?:\bfrom|\bimport|\bnew URL)\s*\(?\s*)(["'])(\.{1,2}\/[^"']+)\.ts\2/g;

/** Every file under `dir` (recursively), as paths. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Compiles `<root>/server` into a fresh temporary directory laid out as above; answers the directory. */
export async function compileServer(root: string): Promise<string> {
  const out = mkdtempSync(join(tmpdir(), 'cati-test-server-'));
  try {
    const sources = join(root, 'server');
    const files = filesUnder(sources);
    // The code the server shares with the renderer (common/) is compiled beside it, as tsc lays it out.
    const shared = filesUnder(join(root, 'common'));
    await build({
      entryPoints: [...files, ...shared].filter((f) => f.endsWith('.ts')),
      outdir: out,
      outbase: root,
      bundle: false,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      sourcemap: 'inline',
      logLevel: 'error',
    });
    for (const file of [...filesUnder(join(out, 'server')), ...filesUnder(join(out, 'common'))]) {
      const code = readFileSync(file, 'utf8');
      const next = code.replace(TS_SPECIFIER, (_m, head: string, q: string, path: string) => `${head}${q}${path}.js${q}`);
      if (next !== code) writeFileSync(file, next);
    }
    for (const file of files.filter((f) => !/\.[cm]?ts$/.test(f))) {
      const to = join(out, 'server', relative(sources, file));
      mkdirSync(join(to, '..'), { recursive: true });
      copyFileSync(file, to);
    }
    copyFileSync(join(root, 'package.json'), join(out, 'package.json'));
    symlinkSync(join(root, 'node_modules'), join(out, 'node_modules'), 'dir');
    symlinkSync(join(root, 'dist'), join(out, 'dist'), 'dir');
    return out;
  } catch (e) {
    rmSync(out, { recursive: true, force: true });
    throw e;
  }
}
