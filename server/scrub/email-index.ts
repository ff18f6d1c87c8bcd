/**
 * The opt-out lists of one scrub in memory (built in the parse worker from the entries the main thread
 * reads): addresses and domains of each list, matched as the lists' Check does (the address first, then its
 * domain and every parent domain, most specific first), the project's list before the company's.
 */
import type { Store } from '../db/store.ts';
import { sendPages } from './list-entries.ts';
import type { EntriesChunk } from './scrub-protocol.ts';

export interface EmailMatch {
  id: number;
  listId: number;
  by: 'email' | 'domain';
}

/** What a scrub matches addresses against. */
export class EmailIndex {
  private readonly emails = new Map<string, EmailMatch>();
  private readonly domains = new Map<string, EmailMatch>();

  /** Adds one stored entry (lists added in priority order: the first one holding a value wins). */
  add(kind: 'email' | 'domain', value: string, id: number, listId: number): void {
    const map = kind === 'email' ? this.emails : this.domains;
    if (!map.has(value)) map.set(value, { id, listId, by: kind });
  }

  /** The entry that blocks a normalised address, or undefined. */
  match(email: string): EmailMatch | undefined {
    const hit = this.emails.get(email);
    if (hit) return hit;
    let domain = email.slice(email.lastIndexOf('@') + 1);
    for (;;) {
      const d = this.domains.get(domain);
      if (d) return d;
      const dot = domain.indexOf('.');
      if (dot < 0) return undefined;
      domain = domain.slice(dot + 1);
      if (!domain.includes('.')) return undefined; // a bare TLD is never an entry
    }
  }
}

/** Sends the lists (by id, in priority order) to a scrub's worker (code 1: domain), in chunks, yielding between them. */
export async function sendEmailLists(store: Store, listIds: readonly number[], to: (chunk: EntriesChunk) => void): Promise<void> {
  for (const listId of listIds) {
    await sendPages(store, { table: 'optout_emails', value: 'email_address', code: "'0'", where: 'list_id = ?' }, [listId], listId, to);
    await sendPages(store, { table: 'optout_domains', value: 'domain', code: "'1'", where: 'list_id = ?' }, [listId], listId, to);
  }
}
