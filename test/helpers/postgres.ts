/**
 * PostgreSQL in the tests: test/global-setup.ts starts one cluster per vitest run (helpers/pg-cluster.ts) and
 * provides its admin URL; each test file takes a database of its own with `freshPgDatabase()`, so no test sees
 * another's rows. Without PostgreSQL the PostgreSQL half is skipped with the reason (under CI=true the global
 * setup fails instead).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { PgStore } from '../../server/db/pg-store.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';
import type { Store } from '../../server/db/store.ts';
import { createDatabase } from './pg-cluster.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The admin URL of the run's PostgreSQL cluster ('' when there is none). */
    pgUrl: string;
    /** A migrated database of that cluster to copy (global-setup.ts; '' when there is none). */
    pgTemplate: string;
    /** Why there is no cluster (when pgUrl is ''). */
    pgSkipReason: string;
  }
}

/** Whether this run has PostgreSQL (the reason when not); use with describe.skipIf. */
export function pgAvailability(): { available: boolean; reason: string } {
  const url = inject('pgUrl');
  return { available: url !== '', reason: url ? '' : inject('pgSkipReason') };
}

/** A fresh, empty database on the run's cluster, for one test file; resolves to its URL. */
export function freshPgDatabase(): Promise<string> {
  const url = inject('pgUrl');
  if (!url) throw new Error(`No PostgreSQL for this run: ${inject('pgSkipReason')}`);
  return createDatabase(url);
}

/**
 * A fresh database on the run's cluster with the migrations already run: a copy of the run's template (empty when the
 * run has none, e.g. with CATI_TEST_PG_URL: the store then migrates it when it opens, as a new database in production).
 */
export function migratedPgDatabase(): Promise<string> {
  const url = inject('pgUrl');
  if (!url) throw new Error(`No PostgreSQL for this run: ${inject('pgSkipReason')}`);
  return createDatabase(url, inject('pgTemplate'));
}


/** A migrated store of either engine on fresh storage: a SQLite file in a temporary directory (removed on close) or a fresh PostgreSQL database. */
export async function openTestStore(engine: 'sqlite' | 'postgres'): Promise<Store> {
  if (engine === 'postgres') return PgStore.open(await migratedPgDatabase());
  const dir = mkdtempSync(join(tmpdir(), 'cati-store-'));
  const store = SqliteStore.open(join(dir, 'cati.sqlite'));
  const close = store.close.bind(store);
  store.close = async () => {
    await close();
    rmSync(dir, { recursive: true, force: true });
  };
  return store;
}
