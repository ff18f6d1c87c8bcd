import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The repository's root (this file is test/helpers/shared-data.ts), whatever the working directory. */
export const REPO_ROOT = join(import.meta.dirname, '..', '..');

/** Shared test data beside the project: `../shared/testdata` from the repository root. */
export const SHARED_TESTDATA = join(REPO_ROOT, '..', 'shared', 'testdata');

/**
 * The path of a shared test data file (relative to SHARED_TESTDATA), or undefined when it is missing — the
 * tests that need it are then skipped with a warning. Under CI=true a missing file throws, so the test file
 * fails instead of passing with nothing checked.
 */
export function sharedData(relative: string): string | undefined {
  const path = join(SHARED_TESTDATA, relative);
  if (existsSync(path)) return path;
  if (process.env.CI === 'true') throw new Error(`Shared test data missing (CI=true): ${path}`);
  console.warn(`SKIPPED: shared test data not found: ${path}`);
  return undefined;
}
