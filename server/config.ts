import { join } from 'node:path';
import type { ProcessLauncher } from './db/job-process.ts';

/** Everything the server is started with (docs/deployment.md#serve). */
export interface ServerConfig {
  host: string;
  port: number;
  dataDir: string;
  /**
   * `--database URL` (docs/deployment.md#postgresql): `sqlite:` (the default, `<data-dir>/cati.sqlite`) or `postgres://…`;
   * undefined = the default.
   */
  database?: string;
  demo: boolean;
  companyId: number;
  /** Base of unsubscribe links handed to mailers; default the server's own URL. */
  publicUrl: string | null;
  trustProxy: boolean;
  /** `--allowed-hosts`: Host names accepted besides the bind address, loopback, this machine and the public URL's host (docs/cati-api.md#hosts). */
  allowedHosts: string[];
  /** `--phone-region CC` (ISO 3166 alpha-2): blacklist numbers normalised for this region (docs/cati-api.md#phone-region); null = digits only. */
  phoneRegion: string | null;
  tlsCert: string | null;
  tlsKey: string | null;
  /** CATI_API_KEY: accepted with every permission for this run only. */
  apiKey: string | null;
  /** Directory with the built renderer (served at /); null = none. */
  staticDir: string | null;
  /** Unsubscribe-page rate limits (docs/unsubscribe.md#rate-limits). */
  rateLimits: UnsubscribeRateLimits;
  /** An open session without activity for this long is stale: off the floor (docs/cati-api.md#floor, `--stale-session-hours`). */
  staleSessionHours: number;
  /** On close, how long in-flight requests may take before the connections left open are cut. */
  shutdownGraceMs: number;
  /** `--demo-live`: a simulated dialer posts logins, calls, breaks and logouts through the ingest routes. */
  demoLive: boolean;
  /** `GET /events` (docs/events.md#events, docs/limits.md#limits). */
  events: EventStreamLimits;
  /** How long scrub jobs and their files are kept (docs/cati-api.md#scrubs; default 24 h, shorter in tests). */
  scrubRetentionMs?: number;
  /** How jobs get a process of their own (db/job-process.ts): Node's fork by default; the desktop app's utilityProcess. */
  jobLauncher?: ProcessLauncher;
}

/** Limits of the Server-Sent Events stream. */
export interface EventStreamLimits {
  /** A comment line this often keeps proxies from closing an idle stream. */
  heartbeatMs: number;
  maxStreamsPerKey: number;
  /** Events kept for `Last-Event-ID` replay. */
  replayEvents: number;
  /** A client whose unsent output passes this many bytes is dropped (it resumes with Last-Event-ID). */
  maxBufferedBytes: number;
}

/** At most `limit` requests per fixed window of `windowMs`. */
export interface RateLimit {
  limit: number;
  windowMs: number;
}

/** Per client address; per address with an invalid key; per key for POSTs with a valid key. */
export interface UnsubscribeRateLimits {
  pages: RateLimit;
  invalidKeys: RateLimit;
  keyPosts: RateLimit;
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
    allowedHosts: [],
    phoneRegion: null,
    tlsCert: null,
    tlsKey: null,
    apiKey: null,
    staticDir: null,
    rateLimits: {
      pages: { limit: 300, windowMs: 60_000 },
      invalidKeys: { limit: 20, windowMs: 600_000 },
      keyPosts: { limit: 30, windowMs: 60_000 },
    },
    staleSessionHours: 12,
    shutdownGraceMs: 20_000,
    demoLive: false,
    events: { heartbeatMs: 15_000, maxStreamsPerKey: 50, replayEvents: 10_000, maxBufferedBytes: 4 * 1024 * 1024 },
    ...overrides,
  };
}

export const databaseFile = (dataDir: string) => join(dataDir, 'cati.sqlite');

/**
 * The engine a `--database` value names (docs/deployment.md#postgresql): absent, `sqlite:` or `sqlite:PATH` → the embedded SQLite;
 * `postgres://…`/`postgresql://…` → PostgreSQL; anything else undefined.
 */
export function databaseEngine(url: string | undefined): 'sqlite' | 'postgres' | undefined {
  if (url === undefined || url === '' || url.startsWith('sqlite:')) return 'sqlite';
  if (/^postgres(ql)?:\/\/\S+$/i.test(url)) return 'postgres';
  return undefined;
}
