import type { ApiKeyStore } from './auth/api-keys.ts';
import type { ServerConfig } from './config.ts';
import type { Db } from './db/open.ts';

/** What every router is built from. */
export interface AppContext {
  db: Db;
  /** Path of the SQLite file, for workers and exports that open their own connection. */
  dbFile: string;
  config: ServerConfig;
  keys: ApiKeyStore;
  /** The URL the server listens on (set once listening). */
  baseUrl: () => string;
}
