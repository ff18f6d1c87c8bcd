import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfig, type ServerConfig } from '../../server/config.ts';
import { startServer, type RunningServer } from '../../server/server.ts';
import { testEngine } from './engine.ts';
import { migratedPgDatabase } from './postgres.ts';

export const TEST_API_KEY = 'test-key-0123456789abcdef';

export interface TestServer {
  url: string;
  dataDir: string;
  server: RunningServer;
  /** fetch against the server with the all-permission test key unless `key` is given (null = none). */
  request(method: string, path: string, options?: RequestOptions): Promise<Response>;
  /** Same as request, and parses the JSON body (undefined for an empty body). */
  json<T = any>(method: string, path: string, options?: RequestOptions): Promise<{ status: number; body: T; headers: Headers }>;
  close(): Promise<void>;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body (string/Buffer/FormData) sent as is. */
  raw?: BodyInit;
  headers?: Record<string, string>;
  key?: string | null;
}

/**
 * The database of a data dir on this run's engine: undefined (the dir's SQLite file) or, when the run uses
 * PostgreSQL (CATI_TEST_DATABASE=postgres), a fresh database of the run's cluster (a copy of its migrated template) made for the dir on first use
 * and reused whenever a server starts again on the same dir (its URL kept in the dir).
 */
export async function testDatabase(dataDir: string): Promise<string | undefined> {
  if (testEngine() !== 'postgres') return undefined;
  const file = join(dataDir, 'test-database-url');
  if (existsSync(file)) return readFileSync(file, 'utf8');
  const url = await migratedPgDatabase();
  writeFileSync(file, url);
  return url;
}

/** Starts a real server on an ephemeral 127.0.0.1 port over a fresh database (this run's engine) in a temp dir. */
export async function startTestServer(overrides: Partial<ServerConfig> = {}): Promise<TestServer> {
  const dataDir = overrides.dataDir ?? mkdtempSync(join(tmpdir(), 'cati-test-'));
  const database = overrides.database ?? (await testDatabase(dataDir));
  const server = await startServer(defaultConfig({ port: 0, host: '127.0.0.1', apiKey: TEST_API_KEY, ...overrides, dataDir, database }));
  const request = (method: string, path: string, options: RequestOptions = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? TEST_API_KEY : options.key;
    if (key !== null && !('authorization' in headers) && !('Authorization' in headers)) headers.authorization = `Bearer ${key}`;
    let body: BodyInit | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    return fetch(server.url + path, { method, headers, body });
  };
  return {
    url: server.url,
    dataDir,
    server,
    request,
    async json(method, path, options) {
      const res = await request(method, path, options);
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
    },
    async close() {
      await server.close();
      if (!overrides.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
