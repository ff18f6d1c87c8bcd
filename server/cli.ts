import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { ApiKeyStore, parsePermissions, parseProjects } from './auth/api-keys.ts';
import { checkPhoneRegion } from './phone/phone-region.ts';
import { databaseEngine, defaultConfig, DEFAULT_PORT, type RateLimit, type UnsubscribeRateLimits } from './config.ts';
import { lockedDatabase, sameDatabase } from './db/database-url.ts';
import { appRoot } from './db/native-binding.ts';
import { localBrowserUrl, runningServer } from './db/run-lock.ts';
import { DatabaseOpenError, openStoreOrExplain, startServer } from './server.ts';
import { TlsFileError } from './tls.ts';

/** The project: the directory of package.json above this file, whether it runs from server/ or compiled in dist/server/. */
const ROOT = appRoot();

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

/**
 * `--database URL`, else the environment's CATI_DATABASE_URL (docs/deployment.md#postgresql): `sqlite:` (the default,
 * `<data-dir>/cati.sqlite`) or `postgres://…`; undefined = the default.
 */
export function databaseOption(value: string | undefined): string | undefined {
  const url = value ?? (process.env.CATI_DATABASE_URL || undefined);
  if (databaseEngine(url) === undefined) fail(`--database must be 'sqlite:' (the data dir's cati.sqlite) or a postgres://… URL, not '${url}'`);
  return url;
}

/**
 * The database a command opens on a data dir (docs/people.md#keys): `--database`/CATI_DATABASE_URL when given, else
 * the one the server running on the data dir uses (server.lock), else the data dir's SQLite file. Refuses,
 * in one line, when the running server's URL had a password (the lock leaves it out) or `--database` names
 * another database than that server's: never a silent write to a database no server reads.
 */
export function cliDatabase(dataDir: string, given: string | undefined): string | undefined {
  const url = databaseOption(given);
  const server = runningServer(dataDir);
  const used = server?.database;
  if (!used) return url;
  if (url !== undefined) {
    if (!sameDatabase(url, used)) fail(`The server running on ${dataDir} uses ${used}, not ${lockedDatabase(url).database}: give its database with --database or CATI_DATABASE_URL, or stop that server first`);
    return url;
  }
  if (server.databasePasswordOmitted) fail(`The server running on ${dataDir} uses ${used}, whose password server.lock does not keep: give the URL with --database or CATI_DATABASE_URL`);
  return used === 'sqlite:' ? undefined : used;
}

/** Whole non-negative integer option, or a clear error. */
function intOption(name: string, value: string | undefined, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) > max) fail(`--${name} must be a whole number from 0 to ${max}`);
  return Number(value);
}

/** `--allowed-hosts a,b`: host names or addresses (no scheme, port or path). */
function parseAllowedHosts(value: string | undefined): string[] {
  const hosts = (value ?? '').split(',').map((h) => h.trim()).filter((h) => h !== '');
  for (const h of hosts) if (!/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.:-]+)$/.test(h)) fail(`--allowed-hosts: '${h}' is not a host name or address (no scheme, port or path)`);
  return hosts;
}

/** `--phone-region CC`: a region libphonenumber-js knows (ISO 3166 alpha-2), upper-cased. */
function phoneRegionOption(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  const region = checkPhoneRegion(value);
  if (!region) fail(`--phone-region must be an ISO 3166 alpha-2 country code with a telephone numbering plan (e.g. NL, DE, US), not '${value}'`);
  return region;
}

/** The unsubscribe-page limits (docs/unsubscribe.md#rate-limits, configurable): each a whole number of requests ≥ 1 per its fixed window. */
function rateLimitsOption(values: Record<string, string | boolean | undefined>): UnsubscribeRateLimits {
  const base = defaultConfig().rateLimits;
  const limit = (name: string, rule: RateLimit): RateLimit => {
    const value = values[name] as string | undefined;
    const n = intOption(name, value, rule.limit, 1_000_000_000);
    if (n < 1) fail(`--${name} must be at least 1`);
    return { ...rule, limit: n };
  };
  return {
    pages: limit('unsubscribe-rate-limit', base.pages),
    invalidKeys: limit('unsubscribe-invalid-key-limit', base.invalidKeys),
    keyPosts: limit('unsubscribe-key-post-limit', base.keyPosts),
  };
}

async function serve(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      database: { type: 'string' },
      demo: { type: 'boolean' },
      'company-id': { type: 'string' },
      'public-url': { type: 'string' },
      'trust-proxy': { type: 'boolean' },
      'allowed-hosts': { type: 'string' },
      'phone-region': { type: 'string' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      'stale-session-hours': { type: 'string' },
      'demo-live': { type: 'boolean' },
      'unsubscribe-rate-limit': { type: 'string' },
      'unsubscribe-invalid-key-limit': { type: 'string' },
      'unsubscribe-key-post-limit': { type: 'string' },
    },
  });
  if (Boolean(values['tls-cert']) !== Boolean(values['tls-key'])) fail('--tls-cert and --tls-key go together');
  const staleHours = values['stale-session-hours'];
  if (staleHours !== undefined && !(/^\d+(\.\d+)?$/.test(staleHours) && Number(staleHours) > 0 && Number(staleHours) <= 8760)) {
    fail('--stale-session-hours must be a number of hours above 0 and at most 8760 (e.g. 12 or 0.5)');
  }
  const apiKey = process.env.CATI_API_KEY || null;
  if (apiKey && apiKey.length < 16) fail('CATI_API_KEY must be at least 16 characters');
  const config = defaultConfig({
    host: values.host ?? '127.0.0.1',
    port: intOption('port', values.port, DEFAULT_PORT, 65535),
    dataDir: resolve(values['data-dir'] ?? './data'),
    database: databaseOption(values.database),
    demo: values.demo ?? false,
    companyId: intOption('company-id', values['company-id'], 1, 2147483647),
    publicUrl: values['public-url'] ?? null,
    trustProxy: values['trust-proxy'] ?? false,
    allowedHosts: parseAllowedHosts(values['allowed-hosts']),
    phoneRegion: phoneRegionOption(values['phone-region']),
    tlsCert: values['tls-cert'] ?? null,
    tlsKey: values['tls-key'] ?? null,
    apiKey,
    staticDir: join(ROOT, 'dist', 'renderer'),
    staleSessionHours: staleHours === undefined ? 12 : Number(staleHours),
    demoLive: values['demo-live'] ?? false,
    rateLimits: rateLimitsOption(values),
  });
  if (config.publicUrl !== null && !/^https?:\/\/[^\s]+$/i.test(config.publicUrl)) fail('--public-url must be an http(s) URL');

  let running;
  try {
    running = await startServer(config);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'EADDRINUSE') fail(`Port ${config.port} on ${config.host} is already in use; choose another with --port`);
    if (code === 'EADDRNOTAVAIL') fail(`Address ${config.host} is not available on this machine`);
    if (err instanceof TlsFileError || err instanceof DatabaseOpenError) fail(err.message);
    throw err;
  }
  process.stdout.write(`listening on ${running.url}\n`);
  // A single-use token that expires in 15 minutes, not a key: a copied log line is useless afterwards (docs/people.md#ui-sessions).
  process.stdout.write(`open the UI: ${localBrowserUrl(running.url)}/#token=${await running.ctx.keys.ui.mintToken()}\n`);
  if (running.tls) process.stdout.write(`TLS certificate SHA-256 fingerprint (for clients to pin): ${running.tls.fingerprint}\n`);
  const loopback = /^(127\.|localhost$|::1$|\[::1\]$)/.test(config.host);
  if (!loopback && !config.tlsCert) {
    process.stderr.write('warning: the API is exposed on the network without TLS; API keys cross the network in clear text (use --tls-cert/--tls-key)\n');
  }
  const stop = () => {
    void running.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

async function keys(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string' },
      database: { type: 'string' },
      name: { type: 'string' },
      permissions: { type: 'string' },
      projects: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const dataDir = resolve(values['data-dir'] ?? './data');
  let db;
  try {
    db = await openStoreOrExplain({ dataDir, database: cliDatabase(dataDir, values.database) });
  } catch (err) {
    fail((err as Error).message);
  }
  const store = new ApiKeyStore(db);
  const [command, arg] = positionals;
  try {
    switch (command) {
      case 'create': {
        if (!values.name) fail('keys create needs --name N');
        if (!values.permissions) fail('keys create needs --permissions a,b');
        const { key, info } = await store.create(values.name, parsePermissions(values.permissions), parseProjects(values.projects));
        process.stdout.write(`created key ${info.id} '${info.name}' with ${info.permissions.join(',')}${info.projects ? ` for ${info.projects.join(',')}` : ''}\n`);
        process.stdout.write('store it now: it is shown only once\n');
        process.stdout.write(`${key}\n`);
        break;
      }
      case 'list': {
        const list = await store.list();
        if (values.json) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
        else if (list.length === 0) process.stdout.write('no keys\n');
        else
          for (const k of list) {
            const state = k.revokedAt ? `revoked ${k.revokedAt}` : 'active';
            process.stdout.write(`${k.id}\t${k.name}\t${k.prefix}…\t${k.permissions.join(',')}\t${k.projects?.join(',') ?? '*'}\t${state}\n`);
          }
        break;
      }
      case 'revoke': {
        if (!arg || !/^\d+$/.test(arg)) fail('keys revoke needs a key id (see keys list)');
        if (!(await store.revoke(Number(arg)))) fail(`no active key with id ${arg}`);
        process.stdout.write(`revoked key ${arg}\n`);
        break;
      }
      case 'ui-link': {
        const server = runningServer(dataDir);
        if (!server) fail(`No server is running on ${dataDir}: start it with npm run serve -- --data-dir ${dataDir} (it prints a link)`);
        process.stdout.write('a fresh UI link for the running server (it works once, within 15 minutes):\n');
        process.stdout.write(`${localBrowserUrl(server.url)}/#token=${await store.ui.mintToken()}\n`);
        break;
      }
      default:
        fail('usage: keys [--data-dir D] [--database URL] create --name N --permissions a,b [--projects p1,p2] | list [--json] | revoke ID | ui-link');
    }
  } catch (err) {
    fail((err as Error).message);
  } finally {
    await db.close();
  }
}

async function users(args: string[]) {
  // The password is read from stdin only: never from an argument (shell history, the process list).
  if (args.some((a) => /^(--password|-p)(=|$)/.test(a))) fail('users: the password is read from stdin, never taken as an argument');
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { 'data-dir': { type: 'string' }, database: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' }, json: { type: 'boolean' } },
  });
  const { runUsersCommand, USERS_USAGE } = await import('./users-cli.ts');
  if (!['create', 'list', 'lock', 'unlock', 'password'].includes(positionals[0] ?? '')) fail(USERS_USAGE);
  let db;
  try {
    const dataDir = resolve(values['data-dir'] ?? './data');
    db = await openStoreOrExplain({ dataDir, database: cliDatabase(dataDir, values.database) });
  } catch (err) {
    fail((err as Error).message);
  }
  try {
    await runUsersCommand(new ApiKeyStore(db).users, positionals, values);
  } catch (err) {
    fail((err as Error).message);
  } finally {
    await db.close();
  }
}

async function seed(args: string[]) {
  const { values } = parseArgs({
    args,
    options: { 'data-dir': { type: 'string' }, database: { type: 'string' }, calls: { type: 'string' }, days: { type: 'string' } },
  });
  const calls = intOption('calls', values.calls, 1_000_000);
  const days = intOption('days', values.days, 30, 36_500);
  if (days < 1) fail('--days must be at least 1');
  let store;
  try {
    store = await openStoreOrExplain({ dataDir: resolve(values['data-dir'] ?? './data'), database: databaseOption(values.database) });
  } catch (err) {
    fail((err as Error).message);
  }
  try {
    const { seedCalls } = await import('./demo/demo.ts');
    await seedCalls(store, calls, (line) => process.stdout.write(`${line}\n`), days);
  } finally {
    await store.close();
  }
}

const [command, ...rest] = process.argv.slice(2);
try {
  if (command === 'serve') await serve(rest);
  else if (command === 'keys') await keys(rest);
  else if (command === 'users') await users(rest);
  else if (command === 'seed') await seed(rest);
  else if (command === 'backup') await (await import('./backup-cli.ts')).backupCommand(rest);
  else if (command === 'restore') await (await import('./backup-cli.ts')).restoreCommand(rest);
  else fail('usage: cli.ts serve|keys|users|seed|backup|restore [options]');
} catch (err) {
  const e = err as { code?: string; message?: string };
  if (e.code?.startsWith('ERR_PARSE_ARGS')) fail(e.message ?? 'bad arguments');
  throw err;
}
