import { recordAudit } from '../audit/audit-log.ts';
import type { Queryable, Store } from '../db/store.ts';

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

const INSERT_EMAIL = `INSERT INTO optout_emails (list_id, email_address, timestamp, unsubscribed_from) VALUES (?, ?, ?, ?)
  ON CONFLICT (list_id, email_address) DO NOTHING RETURNING id`;
const FIND_EMAIL = 'SELECT id FROM optout_emails WHERE list_id = ? AND email_address = ?';
const INSERT_DOMAIN = `INSERT INTO optout_domains (list_id, domain, timestamp) VALUES (?, ?, ?)
  ON CONFLICT (list_id, domain) DO NOTHING RETURNING id`;
const FIND_DOMAIN = 'SELECT id FROM optout_domains WHERE list_id = ? AND domain = ?';

/**
 * Adds a normalised e-mail address to a list and returns the entry id: the new one, or the existing one for
 * a duplicate (idempotent; an existing entry keeps its timestamp and unsubscribedFrom).
 */
export function addEmailEntry(store: Store, listId: number, email: string, unsubscribedFrom: string | null): Promise<number> {
  return store.transaction(async (tx) => {
    const id = await tx.value<number>(INSERT_EMAIL, [listId, email, Date.now(), unsubscribedFrom]);
    if (id === undefined) return (await tx.value<number>(FIND_EMAIL, [listId, email]))!;
    const changes = { listId, emailAddress: email, unsubscribedFrom };
    await recordAudit(tx, { action: 'created', entity: 'optout-emails', entityId: id, changes });
    return id;
  });
}

/** Adds a normalised domain to a list and returns the entry id (new, or the existing one; idempotent). */
export function addDomainEntry(store: Store, listId: number, domain: string): Promise<number> {
  return store.transaction(async (tx) => {
    const id = await tx.value<number>(INSERT_DOMAIN, [listId, domain, Date.now()]);
    if (id === undefined) return (await tx.value<number>(FIND_DOMAIN, [listId, domain]))!;
    await recordAudit(tx, { action: 'created', entity: 'optout-domains', entityId: id, changes: { listId, domain } });
    return id;
  });
}

/** Deletes one entry of a list (audited with its old values); false when the list holds no such entry. */
export function deleteEntry(store: Store, kind: EntryKind, listId: number, entryId: number): Promise<boolean> {
  const [table, columns] = kind === 'emails'
    ? ['optout_emails', 'email_address AS "emailAddress", unsubscribed_from AS "unsubscribedFrom"']
    : ['optout_domains', 'domain'];
  return store.transaction(async (tx) => {
    const old = await tx.get(`DELETE FROM ${table} WHERE id = ? AND list_id = ? RETURNING ${columns}`, [entryId, listId]);
    if (!old) return false;
    await recordAudit(tx, { action: 'deleted', entity: kind === 'emails' ? 'optout-emails' : 'optout-domains', entityId: entryId, changes: { listId, ...old } });
    return true;
  });
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
export async function checkAddress(db: Queryable, listId: number, email: string): Promise<CheckResult> {
  const emailId = await db.value<number>(FIND_EMAIL, [listId, email]);
  if (emailId !== undefined) return { blocked: true, matchedBy: 'email', entryId: emailId };
  const labels = email.slice(email.lastIndexOf('@') + 1).split('.');
  for (let i = 0; i < labels.length - 1; i++) {
    const domainId = await db.value<number>(FIND_DOMAIN, [listId, labels.slice(i).join('.')]);
    if (domainId !== undefined) return { blocked: true, matchedBy: 'domain', entryId: domainId };
  }
  return { blocked: false, matchedBy: null, entryId: null };
}
