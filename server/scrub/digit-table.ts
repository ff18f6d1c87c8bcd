/**
 * A map from digit strings (stored telephone numbers and prefixes) to ids, built for a million entries:
 * a string of 1..15 digits not starting with 0 is its own exact number (below 2^53), so those live as
 * doubles in an open-addressing table of typed arrays — no heap string or Map entry each, which keeps the
 * parse worker's index build and garbage collection small; any other string goes to an ordinary Map.
 */

const EMPTY = -1;
const MAX_NUMERIC = 15;

/** The string as an exact number, or -1 when it is kept as a string. */
function numeric(digits: string): number {
  const n = digits.length;
  if (n === 0 || n > MAX_NUMERIC || digits.charCodeAt(0) === 48) return EMPTY;
  let v = 0;
  for (let i = 0; i < n; i++) {
    const c = digits.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return EMPTY;
    v = v * 10 + c;
  }
  return v;
}

/** Mixes a double below 2^53 into a 32-bit slot hash. */
function hash(v: number): number {
  const lo = v % 4294967296 | 0;
  const hi = (v / 4294967296) | 0;
  let h = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  return Math.imul(h, 0xc2b2ae35) ^ (h >>> 16);
}

export class DigitTable {
  private keys = new Float64Array(1024).fill(EMPTY);
  private ids = new Float64Array(1024);
  private count = 0;
  private readonly others = new Map<string, number>();

  /** Sets `digits` → `id` (a later set of the same digits wins, as Map.set). */
  set(digits: string, id: number): void {
    const v = numeric(digits);
    if (v === EMPTY) {
      this.others.set(digits, id);
      return;
    }
    if ((this.count + 1) * 2 > this.keys.length) this.grow();
    const slot = this.find(v);
    if (this.keys[slot] === EMPTY) {
      this.keys[slot] = v;
      this.count++;
    }
    this.ids[slot] = id;
  }

  /** The id of `digits`, or undefined. */
  get(digits: string): number | undefined {
    const v = numeric(digits);
    if (v === EMPTY) return this.others.get(digits);
    const slot = this.find(v);
    return this.keys[slot] === EMPTY ? undefined : this.ids[slot];
  }

  /** Every stored string of digits (for the prefix lengths). */
  *digits(): Generator<string> {
    for (let i = 0; i < this.keys.length; i++) if (this.keys[i] !== EMPTY) yield String(this.keys[i]);
    yield* this.others.keys();
  }

  get size(): number {
    return this.count + this.others.size;
  }

  /** The slot holding `v`, or the empty slot where it would go. */
  private find(v: number): number {
    const mask = this.keys.length - 1;
    let slot = hash(v) & mask;
    while (this.keys[slot] !== EMPTY && this.keys[slot] !== v) slot = (slot + 1) & mask;
    return slot;
  }

  private grow(): void {
    const keys = this.keys;
    const ids = this.ids;
    this.keys = new Float64Array(keys.length * 2).fill(EMPTY);
    this.ids = new Float64Array(keys.length * 2);
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] === EMPTY) continue;
      const slot = this.find(keys[i]!);
      this.keys[slot] = keys[i]!;
      this.ids[slot] = ids[i]!;
    }
  }
}
