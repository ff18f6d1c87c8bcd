import type { ApiKeyStore } from './auth/api-keys.ts';
import type { ServerConfig } from './config.ts';
import type { Store } from './db/store.ts';
import type { EventHub } from './events/event-hub.ts';

/** What every router is built from. */
export interface AppContext {
  /** The data layer (SQLite or PostgreSQL, server/db/store.ts): every service reads and writes through it. */
  store: Store;
  config: ServerConfig;
  keys: ApiKeyStore;
  /** The /events stream; write paths reach it through `publishChanges` (server/events/publisher.ts). */
  events: EventHub;
  /** The URL the server listens on (set once listening). */
  baseUrl: () => string;
}
