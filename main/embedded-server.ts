import { userInfo } from 'node:os';
import { proposePhoneRegion } from '../server/cati/phone-region-setting.ts';
import { defaultConfig } from '../server/config.ts';
import { startServer, type RunningServer } from '../server/server.ts';
import { ensureSelfSigned, loadTlsPair, TlsFileError } from '../server/tls.ts';
import type { DesktopSettings } from './bridge-api.ts';
import { utilityLauncher } from './job-processes.ts';

/** The server running inside the Electron main process, with the key handed to the renderer. */
export interface EmbeddedServer {
  running: RunningServer;
  /** URL the window loads: always loopback, even when the server binds 0.0.0.0. */
  localUrl: string;
  /** In-memory key with every permission, valid for this server run only. */
  sessionKey: string;
  host: string;
}

/** A start failure with a message fit for a dialog. */
export class ServerStartError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
  ) {
    super(message);
    this.name = 'ServerStartError';
  }
}

export interface EmbeddedServerOptions {
  dataDir: string;
  staticDir: string;
  /** `--demo` / `--demo-live` passed to the app (`npm start -- --demo --demo-live`). */
  demo?: boolean;
  demoLive?: boolean;
  timeoutMs?: number;
  /** A phone region proposed from the OS locale (first start): stored only when the company has none stored yet (docs/cati-api.md#phone-region). */
  proposedPhoneRegion?: string | null;
}

/**
 * The certificate and key files the settings ask for: none on loopback or with TLS off; the self-signed one of
 * the data dir (made on first use); or the user's files, checked to belong together (else a ServerStartError,
 * before anything is stopped or started).
 */
export async function tlsFilesFor(settings: DesktopSettings, dataDir: string): Promise<{ tlsCert: string; tlsKey: string } | null> {
  if (!settings.exposeOnLan || settings.tls === 'off') return null;
  try {
    const pair =
      settings.tls === 'own' ? loadTlsPair(settings.tlsCertFile ?? '', settings.tlsKeyFile ?? '') : await ensureSelfSigned(dataDir);
    return { tlsCert: pair.certFile, tlsKey: pair.keyFile };
  } catch (err) {
    if (err instanceof TlsFileError) throw new ServerStartError(err.message, 'TLS_FILES');
    throw err;
  }
}

/** Starts the server in-process on the settings' port and host, waiting at most `timeoutMs`. */
export async function startEmbeddedServer(settings: DesktopSettings, options: EmbeddedServerOptions): Promise<EmbeddedServer> {
  const host = settings.exposeOnLan ? '0.0.0.0' : '127.0.0.1';
  const apiKey = process.env.CATI_API_KEY && process.env.CATI_API_KEY.length >= 16 ? process.env.CATI_API_KEY : null;
  const tls = await tlsFilesFor(settings, options.dataDir);
  const config = defaultConfig({
    host, port: settings.port, dataDir: options.dataDir, staticDir: options.staticDir, apiKey, demo: options.demo ?? false, demoLive: options.demoLive ?? false, ...tls,
    // The window reloads on every restart or switch: what it still had open to the old server may be cut soon.
    shutdownGraceMs: 2_000,
    // A scrub runs in a utility process of its own: its memory goes back to the system when it ends.
    jobLauncher: utilityLauncher,
  });
  const timeoutMs = options.timeoutMs ?? 20_000;
  let timer: NodeJS.Timeout | undefined;
  const starting = startServer(config);
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ServerStartError(`The embedded server did not start within ${timeoutMs / 1000} s.`, 'ETIMEDOUT')), timeoutMs);
  });
  let running: RunningServer;
  try {
    running = await Promise.race([starting, timeout]);
  } catch (err) {
    // A server that finishes starting after the timeout must not linger.
    starting.then((late) => late.close()).catch(() => {});
    throw explainStartError(err, host, settings.port, options.dataDir);
  } finally {
    clearTimeout(timer);
  }
  if (options.proposedPhoneRegion) await proposePhoneRegion(running.ctx.store, options.proposedPhoneRegion);
  return {
    running,
    localUrl: `${running.tls ? 'https' : 'http'}://127.0.0.1:${running.port}`,
    // The window opens signed in as the owner: the OS account's user, an administrator made at first start (docs/people.md#users).
    sessionKey: running.ctx.keys.createSessionKey(await running.ctx.keys.users.ensureOwner(osUserName())),
    host,
  };
}

/** The OS account's name, or `owner` where the system cannot tell. */
function osUserName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'owner';
  }
}

/** Turns listen and database errors into sentences a user can act on. */
export function explainStartError(err: unknown, host: string, port: number, dataDir: string): ServerStartError {
  if (err instanceof ServerStartError) return err;
  const code = (err as { code?: string }).code ?? null;
  const message = (err as Error).message ?? String(err);
  switch (code) {
    case 'EADDRINUSE':
      return new ServerStartError(
        `Port ${port} on ${host} is already in use — probably another CATI Supervisor or the headless server (npm run serve). ` +
          'Close it, or start on a free port and change the port in Settings.',
        code,
      );
    case 'EACCES':
      return new ServerStartError(`Not allowed to listen on port ${port} on ${host}; choose a port above 1024 in Settings.`, code);
    case 'EADDRNOTAVAIL':
      return new ServerStartError(`The address ${host} is not available on this machine.`, code);
    default:
      if (code?.startsWith('SQLITE_')) {
        return new ServerStartError(`The database in ${dataDir} cannot be opened (${code}): ${message}`, code);
      }
      return new ServerStartError(`The embedded server failed to start: ${message}`, code);
  }
}

/** Warning shown when the API is reachable from the LAN without TLS (docs/deployment.md#serve). */
export function lanWarning(server: { host: string; running: { url: string } }): string | null {
  if (server.host === '127.0.0.1' || server.running.url.startsWith('https')) return null;
  return 'The API is exposed on the local network without TLS: API keys cross the network in clear text.';
}
