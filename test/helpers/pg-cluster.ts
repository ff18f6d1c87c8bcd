/**
 * A real PostgreSQL for the tests (no mock): a throw-away cluster in a temporary directory, started as the
 * unprivileged `postgres` user when the tests run as root (PostgreSQL refuses root), on a free port of
 * 127.0.0.1, stopped and removed afterwards. test/global-setup.ts starts one per vitest run and provides its
 * URL; each test file takes a database of its own with `freshPgDatabase()`.
 *
 * Without PostgreSQL's binaries the PostgreSQL half of the tests is skipped with the reason — unless CI=true,
 * where it fails. CATI_TEST_PG_URL=postgres://user@host:port/db uses a running server instead.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PgStore } from '../../server/db/pg-store.ts';

/** The directory holding initdb and pg_ctl, or undefined when PostgreSQL is not installed. */
export function postgresBinDir(): string | undefined {
  const has = (dir: string) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'));
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    const versions = readdirSync(base).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    for (const v of versions) if (has(join(base, v, 'bin'))) return join(base, v, 'bin');
  }
  const pgConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const dir = pgConfig.status === 0 ? pgConfig.stdout.trim() : '';
  if (dir && has(dir)) return dir;
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  const initdb = which.status === 0 ? which.stdout.trim() : '';
  return initdb ? join(initdb, '..') : undefined;
}

/** A free TCP port on 127.0.0.1 (closed again before PostgreSQL takes it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A PostgreSQL cluster of the tests: its own data directory and port, superuser `cati`, trust authentication. */
export class PgCluster {
  private constructor(
    readonly bin: string,
    readonly dir: string,
    readonly port: number,
    private readonly asPostgres: boolean,
  ) {}

  /** The superuser URL of database `db` (default `postgres`). */
  url(db = 'postgres'): string {
    return `postgres://cati@127.0.0.1:${this.port}/${db}`;
  }

  /** Creates the cluster (initdb) and starts it. */
  static async create(bin = postgresBinDir()): Promise<PgCluster> {
    if (!bin) throw new Error('PostgreSQL binaries not found (apt-get install postgresql)');
    const asPostgres = process.getuid?.() === 0;
    // Under /tmp when run as root: the postgres user must reach it (a root TMPDIR may not be).
    const dir = mkdtempSync(join(asPostgres ? '/tmp' : tmpdir(), 'cati-pg-'));
    if (asPostgres) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      chownSync(dir, uid, gid);
    }
    chmodSync(dir, 0o700);
    const cluster = new PgCluster(bin, dir, await freePort(), asPostgres);
    cluster.run('initdb', ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'cati', '-E', 'UTF8', '--locale=C', '--no-sync']);
    cluster.start();
    return cluster;
  }

  private run(tool: string, args: string[]): void {
    const cmd = join(this.bin, tool);
    const [file, argv] = this.asPostgres ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
    const r = spawnSync(file, argv, { encoding: 'utf8', cwd: this.dir, timeout: 120_000 });
    if (r.status !== 0) throw new Error(`${tool} failed (${r.status}): ${r.stderr || r.stdout || r.error?.message}`);
  }

  /** Starts (or restarts after stop()) the server and waits until it accepts connections. */
  start(): void {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
    this.run('pg_ctl', ['-D', join(this.dir, 'data'), '-o', options, '-l', join(this.dir, 'log'), '-w', '-t', '60', 'start']);
  }

  /** Stops the server (fast: connections are cut, committed work is kept). */
  stop(): void {
    this.run('pg_ctl', ['-D', join(this.dir, 'data'), '-m', 'fast', '-w', 'stop']);
  }

  /** Stops the server (if running) and removes its directory. */
  remove(): void {
    try {
      this.stop();
    } catch {
      // already stopped
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Creates a database `t_<random>` on the server of `adminUrl`, empty or a copy of `template` (a database nobody is
 * connected to); resolves to its URL.
 */
export async function createDatabase(adminUrl: string, template = ''): Promise<string> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${pg.escapeIdentifier(template)}` : ''}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A database on the server of `adminUrl` that the migrations have run on (opened once as a store, then closed:
 * nothing stays connected to it), to be copied with `createDatabase(adminUrl, name)`; resolves to its name.
 */
export async function createTemplateDatabase(adminUrl: string): Promise<string> {
  const url = await createDatabase(adminUrl);
  const store = await PgStore.open(url);
  await store.close();
  return new URL(url).pathname.slice(1);
}

