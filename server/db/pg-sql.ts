/**
 * What the PostgreSQL engine adds between the services' portable SQL and the `pg` driver: `?` placeholders
 * numbered `$1..$n`, result types parsed as SQLite returns them (bigint and numeric as JS numbers), connection
 * failures told apart from query errors, and a connection URL safe to print.
 */
import pg from 'pg';
import { asDatabaseError } from './database-error.ts';
import { DatabaseUnavailableError } from './store.ts';

const MAX_TRANSLATIONS = 2000;
const translations = new Map<string, string>();

/**
 * `sql` with each `?` outside string literals ('...'), quoted identifiers ("..."), dollar-quoted bodies
 * ($tag$...$tag$) and comments replaced by `$1`, `$2`, ... in order. Cached per SQL text.
 */
export function numberPlaceholders(sql: string): string {
  const cached = translations.get(sql);
  if (cached !== undefined) return cached;
  let out = '';
  let n = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    let end = i + 1;
    if (c === "'" || c === '"') {
      end = sql.indexOf(c, i + 1);
      // A doubled quote inside the literal is an escaped quote: keep scanning.
      while (end !== -1 && sql[end + 1] === c) end = sql.indexOf(c, end + 2);
      end = end === -1 ? sql.length : end + 1;
    } else if (c === '-' && sql[i + 1] === '-') {
      end = sql.indexOf('\n', i);
      end = end === -1 ? sql.length : end;
    } else if (c === '/' && sql[i + 1] === '*') {
      end = sql.indexOf('*/', i + 2);
      end = end === -1 ? sql.length : end + 2;
    } else if (c === '$') {
      const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(i, i + 64))?.[0];
      if (tag && !/[\w$]/.test(sql[i - 1] ?? ' ')) {
        end = sql.indexOf(tag, i + tag.length);
        end = end === -1 ? sql.length : end + tag.length;
      }
    } else if (c === '?') {
      out += `$${++n}`;
      i++;
      continue;
    }
    out += sql.slice(i, end);
    i = end;
  }
  if (translations.size >= MAX_TRANSLATIONS) translations.delete(translations.keys().next().value!);
  translations.set(sql, out);
  return out;
}

const INT8 = 20;
const NUMERIC = 1700;
const JSON_OID = 114;
const JSONB = 3802;
const toNumber = (v: string) => Number(v);
const asText = (v: string) => v;

/**
 * Type parsers for the pool, so values are what SQLite answers: int8 (counts, sums, epoch ms) and numeric (sums,
 * averages) as numbers, json/jsonb as their text (SQLite's JSON functions return text).
 */
export const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
    if (oid === INT8 || oid === NUMERIC) return toNumber;
    if (oid === JSON_OID || oid === JSONB) return asText;
    return pg.types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
  },
};

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);
// admin_shutdown, crash_shutdown, cannot_connect_now, idle_session_timeout.
const SERVER_GONE = new Set(['57P01', '57P02', '57P03', '57P05']);

/** True when `err` says the database is unreachable or the connection broke (not that the query was wrong). */
export function isConnectionError(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return true;
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (CONNECTION_CODES.has(code) || SERVER_GONE.has(code) || code.startsWith('08')) return true;
  const message = typeof e?.message === 'string' ? e.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable|Connection ended/i.test(message);
}

/** Serialization failure or deadlock: the whole transaction may be retried. */
export function isRetryable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40001' || code === '40P01';
}

/**
 * `err` as a DatabaseUnavailableError when it is a connection failure, as a DatabaseError when its SQLSTATE is one of
 * the kinds callers act on (db/database-error.ts), otherwise unchanged.
 */
export function asUnavailable(err: unknown, where: string): unknown {
  if (err instanceof DatabaseUnavailableError) return err;
  if (!isConnectionError(err)) return asDatabaseError(err);
  const reason = (err as { code?: string }).code ?? (err as Error).message;
  return new DatabaseUnavailableError(`The database at ${where} is unavailable (${reason}); try again shortly`, { cause: err });
}


/** `host:port` of a connection URL (defaults as libpq: localhost:5432, PGHOST/PGPORT). */
export function hostPort(url: string): string {
  try {
    const u = new URL(url);
    const host = decodeURIComponent(u.hostname) || u.searchParams.get('host') || process.env.PGHOST || 'localhost';
    return `${host}:${u.port || process.env.PGPORT || '5432'}`;
  } catch {
    return 'the configured address';
  }
}

export { redactUrl } from './database-url.ts';
