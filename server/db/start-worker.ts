import { join, relative } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { unpackedPath } from '../db/native-binding.ts';

const BOOTSTRAP = new URL('./ts-worker-bootstrap.mjs', import.meta.url);
/** The project's root (this file is server/db/start-worker.ts). */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Starts a worker thread on a module of this code base. A `.ts` entry (dev, vitest, `npm run serve`, which
 * run TypeScript through tsx) goes through ts-worker-bootstrap.mjs, because Node 20 carries neither the
 * parent's `--import tsx` nor vitest's transform into worker threads (`new Worker(new URL('./x.ts', …))`
 * fails there with ERR_UNKNOWN_FILE_EXTENSION). A compiled `.js` entry is started directly — in the packaged
 * desktop app from its unpacked copy beside app.asar (worker threads cannot read inside the archive).
 */
export function startModuleWorker(entry: URL, options: WorkerOptions): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(pathToFileURL(unpackedPath(fileURLToPath(entry))), options);
  // CATI_WORKER_BUILD: a copy of this code base already transpiled to JavaScript in the same layout (server/…,
  // common/…). A `.ts` entry starts from its twin there, without registering tsx in the worker (half the CPU of a
  // worker's start): the test run compiles the server once (test/helpers/compiled-server.ts) and sets it.
  const build = process.env.CATI_WORKER_BUILD;
  if (build) return new Worker(pathToFileURL(join(build, relative(ROOT, fileURLToPath(entry))).replace(/\.ts$/, '.js')), options);
  return new Worker(BOOTSTRAP, { ...options, argv: [entry.href, ...(options.argv ?? [])] });
}

/**
 * URL of a sibling module of `parentUrl` named `name`, with the parent's own extension: `.ts` when this code
 * runs as TypeScript, `.js` in a compiled build (tsc's rewriteRelativeImportExtensions rewrites import
 * specifiers, not `new URL('./x.ts', import.meta.url)`).
 */
export function siblingModule(name: string, parentUrl: string): URL {
  const ext = new URL(parentUrl).pathname.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./${name}${ext}`, parentUrl);
}
