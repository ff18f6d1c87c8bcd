import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/open.ts';

/** The two kinds of entries a list holds; the table and column names are fixed here, never taken from input. */
export type EntryKind = 'emails' | 'domains';

export interface EmailItem {
  id: number;
  emailAddress: string;
  timestamp: string;
  unsubscribedFrom: string | null;
}

export interface DomainItem {
  id: number;
  domain: string;
  timestamp: string;
}

interface Statements {
  insertEmail: Statement<unknown[]>;
  findEmail: Statement<unknown[]>;
  insertDomain: Statement<unknown[]>;
  findDomain: Statement<unknown[]>;
}

const cache = new WeakMap<Db, Statements>();

function statements(db: Db): Statements {
  let s = cache.get(db);
  if (!s) {
    s = {
      insertEmail: db.prepare(
        `INSERT INTO optout_emails (list_id, email_address, timestamp, unsubscribed_from) VALUES (?, ?, ?, ?)
         ON CONFLICT (list_id, email_address) DO NOTHING RETURNING id`,
      ),
      findEmail: db.prepare('SELECT id FROM optout_emails WHERE list_id = ? AND email_address = ?').pluck(),
      insertDomain: db.prepare(
        `INSERT INTO optout_domains (list_id, domain, timestamp) VALUES (?, ?, ?)
         ON CONFLICT (list_id, domain) DO NOTHING RETURNING id`,
      ),
      findDomain: db.prepare('SELECT id FROM optout_domains WHERE list_id = ? AND domain = ?').pluck(),
    };
    cache.set(db, s);
  }
  return s;
}

/**
 * Adds a normalised e-mail address to a list and returns the entry id: the new one, or the existing one for
 * a duplicate (idempotent; an existing entry keeps its timestamp and unsubscribedFrom).
 */
export function addEmailEntry(db: Db, listId: number, email: string, unsubscribedFrom: string | null): number {
  const s = statements(db);
  // In a transaction: `.get()` of INSERT … RETURNING reads the row before the statement commits, and an
  // autocommit failing at that point would go unnoticed; db.transaction's COMMIT throws instead.
  return db.transaction(() => {
    const row = s.insertEmail.get(listId, email, Date.now(), unsubscribedFrom) as { id: number } | undefined;
    return row ? row.id : (s.findEmail.get(listId, email) as number);
  })();
}

/** Adds a normalised domain to a list and returns the entry id (new, or the existing one; idempotent). */
export function addDomainEntry(db: Db, listId: number, domain: string): number {
  const s = statements(db);
  return db.transaction(() => {
    const row = s.insertDomain.get(listId, domain, Date.now()) as { id: number } | undefined;
    return row ? row.id : (s.findDomain.get(listId, domain) as number);
  })();
}

/** Deletes one entry of a list; false when the list holds no such entry. */
export function deleteEntry(db: Db, kind: EntryKind, listId: number, entryId: number): boolean {
  const table = kind === 'emails' ? 'optout_emails' : 'optout_domains';
  return db.transaction(() => db.prepare(`DELETE FROM ${table} WHERE id = ? AND list_id = ?`).run(entryId, listId).changes > 0)();
}

export interface CheckResult {
  blocked: boolean;
  matchedBy: 'email' | 'domain' | null;
  entryId: number | null;
}

/**
 * Is a normalised address blocked by a list? First the address itself, then its domain and every parent
 * domain (a domain entry covers its subdomains), most specific first; each probe is one unique-index lookup.
 */
export function checkAddress(db: Db, listId: number, email: string): CheckResult {
  const s = statements(db);
  const emailId = s.findEmail.get(listId, email) as number | undefined;
  if (emailId !== undefined) return { blocked: true, matchedBy: 'email', entryId: emailId };
  const labels = email.slice(email.lastIndexOf('@') + 1).split('.');
  for (let i = 0; i < labels.length - 1; i++) {
    const domainId = s.findDomain.get(listId, labels.slice(i).join('.')) as number | undefined;
    if (domainId !== undefined) return { blocked: true, matchedBy: 'domain', entryId: domainId };
  }
  return { blocked: false, matchedBy: null, entryId: null };
}
