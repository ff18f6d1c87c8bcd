/**
 * The opt-out lists of one scrub in memory (built in the parse worker from the entries its job process
 * reads): addresses and domains of each list, matched as the lists' Check does (the address first, then its
 * domain and every parent domain, most specific first), the project's list before the company's.
 */

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
