// Whether dist/ holds a build of main/ and server/ (scripts/build-main.mjs) as new as their sources. Kept apart from
// build-main.mjs, which loads the compiler's tooling: scripts/serve.mjs asks this on every start.
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Newest modification time (ms) of the given paths and everything under them. A directory's own time counts: it
 * changes when a file in it is removed or renamed (a migration taken out leaves no newer file behind).
 */
export function newest(paths) {
  let max = 0;
  for (const p of paths) {
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    max = Math.max(max, st.mtimeMs);
    if (st.isDirectory()) max = Math.max(max, newest(readdirSync(p).map((n) => join(p, n))));
  }
  return max;
}

/** True when `dir`/dist holds a build of main/ and server/ at least as new as their sources and scripts/build-main.mjs. */
export function mainBuildIsFresh(dir = root) {
  const built = statSync(join(dir, 'dist', 'main', 'main.js'), { throwIfNoEntry: false });
  return !!built && built.mtimeMs >= newest([join(dir, 'main'), join(dir, 'server'), join(dir, 'common'), join(dir, 'scripts', 'build-main.mjs')]);
}
