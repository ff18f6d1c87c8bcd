import { join } from 'node:path';

/** Everything the server is started with (CONTRACT §1). */
export interface ServerConfig {
  host: string;
  port: number;
  dataDir: string;
  demo: boolean;
  companyId: number;
  /** Base of unsubscribe links handed to mailers; default the server's own URL. */
  publicUrl: string | null;
  trustProxy: boolean;
  tlsCert: string | null;
  tlsKey: string | null;
  /** CATI_API_KEY: accepted with every permission for this run only. */
  apiKey: string | null;
  /** Directory with the built renderer (served at /); null = none. */
  staticDir: string | null;
}

export const DEFAULT_PORT = 4100;

export function defaultConfig(overrides: Partial<ServerConfig> = {}): ServerConfig {
  return {
    host: '127.0.0.1',
    port: DEFAULT_PORT,
    dataDir: './data',
    demo: false,
    companyId: 1,
    publicUrl: null,
    trustProxy: false,
    tlsCert: null,
    tlsKey: null,
    apiKey: null,
    staticDir: null,
    ...overrides,
  };
}

export const databaseFile = (dataDir: string) => join(dataDir, 'cati.sqlite');
