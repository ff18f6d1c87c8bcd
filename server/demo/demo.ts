import type { ServerConfig } from '../config.ts';
import type { Db } from '../db/open.ts';

/** Loads the demo call centre into an empty database (CONTRACT §1 `--demo`). */
export function loadDemoIfEmpty(_db: Db, _config: ServerConfig): void {
  throw new Error('demo data: not implemented yet (issue 3)');
}

/** Generates `count` calls for benchmarks (`npm run seed`). */
export function seedCalls(_db: Db, _count: number, _log: (line: string) => void): void {
  throw new Error('seed: not implemented yet (issue 3)');
}
