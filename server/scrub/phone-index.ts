/**
 * The blacklist in memory for one scrub (built in the parse worker from the entries its job process reads):
 * Equal numbers in one DigitTable, StartWith prefixes in another, probed for each prefix length the list holds,
 * longest first — Controller.Check's rule (Equal wins, then the longest prefix; a prefix is unique per Type)
 * as lookups instead of one query per row.
 */
import { DigitTable } from './digit-table.ts';

export interface PhoneMatch {
  id: number;
  number: string;
  type: 'Equal' | 'StartWith';
}

/** What a scrub matches numbers against. */
export class PhoneIndex {
  private readonly equal = new DigitTable();
  private readonly prefixes = new DigitTable();
  private lengths: number[] = [];

  /** Adds one stored item (digits as stored, already normalised for the region). */
  add(id: number, number: string, type: string): void {
    if (type === 'StartWith') this.prefixes.set(number, id);
    else this.equal.set(number, id);
  }

  /** Call once after the last `add`. */
  seal(): this {
    const lengths = new Set<number>();
    for (const p of this.prefixes.digits()) lengths.add(p.length);
    this.lengths = [...lengths].sort((a, b) => b - a);
    return this;
  }

  /** The entry that blocks a normalised number, or undefined. */
  match(number: string): PhoneMatch | undefined {
    const id = this.equal.get(number);
    if (id !== undefined) return { id, number, type: 'Equal' };
    for (const length of this.lengths) {
      if (length > number.length) continue;
      const prefix = length === number.length ? number : number.slice(0, length);
      const p = this.prefixes.get(prefix);
      if (p !== undefined) return { id: p, number: prefix, type: 'StartWith' };
    }
    return undefined;
  }

  get size(): number {
    return this.equal.size + this.prefixes.size;
  }
}
