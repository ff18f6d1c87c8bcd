/**
 * Once per vitest run: a PostgreSQL cluster for the tests of the PostgreSQL engine (helpers/pg-cluster.ts),
 * its admin URL provided to every test file as `pgUrl`, removed when the run ends. Each project runs this
 * setup; they share one cluster (started by the first, removed after the last), so a run of both projects
 * initialises PostgreSQL once. Without PostgreSQL the URL is '' and `pgSkipReason` says why — except under
 * CI=true, where the run fails. `CATI_TEST_PG=off` (npm run test:quick) starts none on purpose.
 * Also once per run, on that cluster: a database the migrations have run on, the template of every test server's
 * database (`pgTemplate`: copying it is a few times cheaper than migrating each new database again).
 * Also once per run: the server compiled to JavaScript for the tests that spawn the CLI (`serverBuild`).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { compileServer } from './helpers/compiled-server.ts';
import { createTemplateDatabase, PgCluster, postgresBinDir } from './helpers/pg-cluster.ts';

/**
 * What the setups of one run share. vitest loads this file once for each project (and once more for the root
 * config), each a module of its own, so module variables would start a cluster and compile the server for each:
 * the shared state lives on the process's global object instead (every setup runs in vitest's main process).
 */
interface RunShared {
  cluster?: { cluster: Promise<PgCluster>; template: Promise<string>; users: number };
  compiled?: { dir: Promise<string>; users: number };
}
const run = ((globalThis as { catiTestRun?: RunShared }).catiTestRun ??= {});

/**
 * The server compiled once per run for the tests that spawn the CLI (helpers/compiled-server.ts), provided as
 * `serverBuild`; shared by both projects like the cluster, removed after the last.
 */
async function provideServerBuild(project: TestProject): Promise<() => void> {
  run.compiled ??= { dir: compileServer(join(import.meta.dirname, '..')), users: 0 };
  run.compiled.users++;
  const mine = run.compiled;
  project.provide('serverBuild', await mine.dir);
  return () => {
    if (--mine.users > 0) return;
    if (run.compiled === mine) run.compiled = undefined;
    void mine.dir.then((dir) => rmSync(dir, { recursive: true, force: true }));
  };
}

function provideNone(project: TestProject, reason: string): undefined {
  console.warn(`SKIPPED (PostgreSQL tests): ${reason}`);
  project.provide('pgUrl', '');
  project.provide('pgTemplate', '');
  project.provide('pgSkipReason', reason);
  return undefined;
}

export default async function setup(project: TestProject): Promise<() => void> {
  const [removeBuild, removeCluster] = await Promise.all([provideServerBuild(project), providePg(project)]);
  return () => {
    removeCluster?.();
    removeBuild();
  };
}

async function providePg(project: TestProject): Promise<(() => void) | undefined> {
  const existing = process.env.CATI_TEST_PG_URL;
  if (existing) {
    project.provide('pgUrl', existing);
    project.provide('pgTemplate', '');
    project.provide('pgSkipReason', '');
    return undefined;
  }
  if (process.env.CATI_TEST_PG === 'off') return provideNone(project, 'CATI_TEST_PG=off (npm run test:quick)');
  const bin = postgresBinDir();
  if (!bin) {
    if (process.env.CI === 'true') throw new Error('PostgreSQL is not installed (CI=true): apt-get install postgresql');
    return provideNone(project, 'PostgreSQL binaries not found (apt-get install postgresql, or set CATI_TEST_PG_URL)');
  }
  if (!run.cluster) {
    const cluster = PgCluster.create(bin);
    run.cluster = { cluster, template: cluster.then((c) => createTemplateDatabase(c.url())), users: 0 };
  }
  run.cluster.users++;
  const mine = run.cluster;
  const cluster = await mine.cluster;
  project.provide('pgUrl', cluster.url());
  project.provide('pgTemplate', await mine.template);
  project.provide('pgSkipReason', '');
  return () => {
    if (--mine.users > 0) return;
    if (run.cluster === mine) run.cluster = undefined;
    cluster.remove();
  };
}
