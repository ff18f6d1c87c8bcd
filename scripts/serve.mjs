// `npm run serve`: the headless server (`server/cli.ts serve` with the arguments given). It runs the compiled
// server in dist/ (what Electron runs; `npm start` and `npm run build:main` make it) when that build is at least as
// new as the sources, and the TypeScript sources through tsx otherwise (edited since, or never built): the same
// code either way. The compiled one starts in about half the time, because tsx's loader hooks, which answer every
// module's resolve and load from another thread, are the larger part of a cold start from the sources.
// CATI_SERVE_FROM=sources forces the sources.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { mainBuildIsFresh, root } from './main-build-state.mjs';

process.argv.splice(2, 0, 'serve');
if (process.env.CATI_SERVE_FROM !== 'sources' && mainBuildIsFresh()) {
  await import(pathToFileURL(join(root, 'dist', 'server', 'cli.js')).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(root, 'server', 'cli.ts')).href);
}
