/**
 * Once per vitest run: a PostgreSQL cluster for the tests of the PostgreSQL engine (helpers/pg-cluster.ts),
 * its admin URL provided to every test file as `pgUrl`, removed when the run ends. Without PostgreSQL the
 * URL is '' and `pgSkipReason` says why — except under CI=true, where the run fails.
 */
import type { TestProject } from 'vitest/node';
import { PgCluster, postgresBinDir } from './helpers/pg-cluster.ts';

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  const existing = process.env.CATI_TEST_PG_URL;
  if (existing) {
    project.provide('pgUrl', existing);
    project.provide('pgSkipReason', '');
    return undefined;
  }
  const bin = postgresBinDir();
  if (!bin) {
    if (process.env.CI === 'true') throw new Error('PostgreSQL is not installed (CI=true): apt-get install postgresql');
    const reason = 'PostgreSQL binaries not found (apt-get install postgresql, or set CATI_TEST_PG_URL)';
    console.warn(`SKIPPED (PostgreSQL tests): ${reason}`);
    project.provide('pgUrl', '');
    project.provide('pgSkipReason', reason);
    return undefined;
  }
  const cluster = await PgCluster.create(bin);
  project.provide('pgUrl', cluster.url());
  project.provide('pgSkipReason', '');
  return () => cluster.remove();
}
