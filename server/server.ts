import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createRequestListener } from './app.ts';
import { ApiKeyStore } from './auth/api-keys.ts';
import { prepareCati } from './cati/index.ts';
import { databaseEngine, type ServerConfig } from './config.ts';
import { openStore, sqliteFile } from './db/open-store.ts';
import { redactUrl } from './db/database-url.ts';
import type { AppContext } from './context.ts';
import type { Store } from './db/store.ts';
import { resetUploadDir } from './files/upload-dir.ts';
import { resetScrubsDir } from './scrub/scrub-files.ts';
import { failOwnJobs, jobServerId } from './scrub/job-table.ts';
import { removeRunLock, writeRunLock } from './db/run-lock.ts';
import { lockedDatabase } from './db/database-url.ts';
import { EventHub } from './events/event-hub.ts';
import type { EventList } from './events/publisher.ts';
import { eventCodec } from './events/outbox-text.ts';
import { loadTlsPair, type TlsPair } from './tls.ts';
import { closeImportWorkers } from './optout/import-workers.ts';

export interface RunningServer {
  /** `http://HOST:PORT` as listening (the port resolved when 0 was asked). */
  url: string;
  port: number;
  ctx: AppContext;
  /** The certificate served (HTTPS), or null for plain HTTP. */
  tls: TlsPair | null;
  /** Stops accepting, finishes in-flight requests, closes the database. */
  close(): Promise<void>;
}

/** The database named by `--database` could not be opened (unreachable, refused, not ours): a one-line reason. */
export class DatabaseOpenError extends Error {
  override name = 'DatabaseOpenError';
}

/** Opens (and migrates) the store `--database` names (server/db/open-store.ts), with any failure turned into a DatabaseOpenError naming the database (password left out). */
export async function openStoreOrExplain(config: Pick<ServerConfig, 'database' | 'dataDir'>): Promise<Store> {
  try {
    return await openStore(config.database, config.dataDir);
  } catch (err) {
    const name = databaseEngine(config.database) === 'postgres' ? redactUrl(config.database!) : sqliteFile(config.database, config.dataDir);
    const reason = String((err as Error)?.message ?? err).replace(/\s+/g, ' ').trim();
    throw new DatabaseOpenError(`Cannot open the database ${name}: ${reason}`);
  }
}

/** Opens (and migrates) the database, builds the app and listens; loads `--demo` data and starts `--demo-live`. */
export async function startServer(config: ServerConfig): Promise<RunningServer> {
  // A certificate that does not belong to its key fails here (TlsFileError), before anything is opened.
  const tls = config.tlsCert && config.tlsKey ? loadTlsPair(config.tlsCert, config.tlsKey) : null;
  const store = await openStoreOrExplain(config);
  resetUploadDir(config.dataDir);
  resetScrubsDir(config.dataDir); // this server's copies of scrub files go at a start (docs/cati-api.md#scrubs)
  await failOwnJobs(store, jobServerId(config.dataDir)); // the jobs it ran before it stopped end failed, with the reason
  await prepareCati(store, config);
  const keys = new ApiKeyStore(store);
  if (config.apiKey) keys.addMemoryKey(config.apiKey, 'CATI_API_KEY');
  const events = new EventHub(config.events);
  // Every committed change's events reach the hub through the store's change feed (on PostgreSQL those of every
  // server on the database: docs/events.md#several-servers).
  const feed = await store.openChangeFeed({ codec: eventCodec, deliver: (batch) => events.publish(batch as EventList), reset: () => events.reset() });
  if (feed.keyChanges) keys.useKeyChangeSignal(feed.keyChanges); // revocations heard over the feed's LISTEN, not read per request
  let url = '';
  const ctx: AppContext = { store, config, keys, events, baseUrl: () => url };
  const app = createRequestListener(ctx);

  const server: Server = tls ? createHttpsServer({ cert: tls.cert, key: tls.key }, app) : createHttpServer(app);
  server.keepAliveTimeout = 5000;

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    events.close();
    await feed.close();
    await store.close();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  url = `${tls ? 'https' : 'http'}://${host}:${port}`;
  writeRunLock(config.dataDir, url, lockedDatabase(config.database));

  if (config.demo) {
    const { loadDemoIfEmpty } = await import('./demo/demo.ts');
    await loadDemoIfEmpty(store, config);
  }
  let live: { stop(): Promise<void> } | undefined;
  if (config.demoLive) {
    const { startDemoLive } = await import('./demo/demo-live.ts');
    const loopback = /^(0\.0\.0\.0|::)$/.test(config.host) ? `127.0.0.1:${port}` : `${host}:${port}`;
    live = await startDemoLive(ctx, `${config.tlsCert ? 'https' : 'http'}://${loopback}`);
  }

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await live?.stop(); // the simulated dialer stops with the server, before it stops accepting
      await new Promise<void>((resolve) => {
        events.close(); // open event streams would otherwise keep the server from closing
        // In-flight requests get config.shutdownGraceMs to finish; a connection still open then (a client that
        // keeps a socket without finishing a request) is cut, so closing always ends.
        const grace = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs).unref();
        server.close(() => {
          clearTimeout(grace);
          void feed
            .close()
            .then(() => closeImportWorkers(store)) // the opt-out import's kept workers (and their SQLite connections)
            .then(() => store.close()) // with its read worker's connection (server/db/sqlite/read-pool.ts)
            .then(() => removeRunLock(config.dataDir, url))
            .then(resolve);
        });
        server.closeIdleConnections();
      });
    })());
  return { url, port, ctx, tls, close };
}
