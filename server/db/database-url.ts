/**
 * How `<data-dir>/server.lock` names the database a server uses (docs/people.md#keys), so the command-line tools
 * open that database and never a SQLite file no server reads: the URL without its password.
 */
import { databaseEngine } from '../config.ts';

/** The database as server.lock records it: `sqlite:` or the PostgreSQL URL without password, and whether one was left out. */
export function lockedDatabase(url: string | undefined): { database: string; passwordOmitted: boolean } {
  if (databaseEngine(url) !== 'postgres') return { database: 'sqlite:', passwordOmitted: false };
  const u = new URL(url!);
  const passwordOmitted = u.password !== '' || u.searchParams.has('password');
  u.password = '';
  u.searchParams.delete('password');
  return { database: u.toString(), passwordOmitted };
}

/** True when two database URLs name the same database (their passwords aside). */
export function sameDatabase(a: string | undefined, b: string | undefined): boolean {
  return lockedDatabase(a).database === lockedDatabase(b).database;
}

/** The connection URL without its password (for logs, /health and messages). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    u.searchParams.delete('password');
    return u.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//');
  }
}
