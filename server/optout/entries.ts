import type { Statement } from 'better-sqlite3';
import { recordAuditSync } from '../audit/audit-log.ts';
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
  return db.transaction(() => {
    const row = s.insertEmail.get(listId, email, Date.now(), unsubscribedFrom) as { id: number } | undefined;
    if (!row) return s.findEmail.get(listId, email) as number;
    const changes = { listId, emailAddress: email, unsubscribedFrom };
    recordAuditSync(db, { action: 'created', entity: 'optout-emails', entityId: row.id, changes });
    return row.id;
  }).immediate();
}

/** Adds a normalised domain to a list and returns the entry id (new, or the existing one; idempotent). */
export function addDomainEntry(db: Db, listId: number, domain: string): number {
  const s = statements(db);
  return db.transaction(() => {
    const row = s.insertDomain.get(listId, domain, Date.now()) as { id: number } | undefined;
    if (!row) return s.findDomain.get(listId, domain) as number;
    recordAuditSync(db, { action: 'created', entity: 'optout-domains', entityId: row.id, changes: { listId, domain } });
    return row.id;
  }).immediate();
}

/** Deletes one entry of a list (audited with its old values); false when the list holds no such entry. */
export function deleteEntry(db: Db, kind: EntryKind, listId: number, entryId: number): boolean {
  const [table, columns] = kind === 'emails'
    ? ['optout_emails', 'email_address AS emailAddress, unsubscribed_from AS unsubscribedFrom']
    : ['optout_domains', 'domain'];
  return db.transaction(() => {
    const old = db.prepare(`DELETE FROM ${table} WHERE id = ? AND list_id = ? RETURNING ${columns}`).get(entryId, listId) as Record<string, unknown> | undefined;
    if (!old) return false;
    recordAuditSync(db, { action: 'deleted', entity: kind === 'emails' ? 'optout-emails' : 'optout-domains', entityId: entryId, changes: { listId, ...old } });
    return true;
  }).immediate();
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
