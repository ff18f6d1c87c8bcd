import { isIPv4, isIPv6 } from 'node:net';
import type { RateLimit } from '../config.ts';

export interface HitResult {
  allowed: boolean;
  /** Seconds until this id's window ends (≥ 1); what `Retry-After` says. */
  retryAfterSeconds: number;
}

interface Window {
  start: number;
  count: number;
}

/** Entries kept at most; beyond this the oldest windows are dropped first (a flood of ids cannot grow memory). */
const DEFAULT_MAX_ENTRIES = 100_000;

/**
 * Fixed-window counters in memory, one window per id starting at its first request.
 * Expired windows are pruned once per window length, and the map is capped in size.
 * The counters are per process (never in the database): each server process counts on its own, so behind a
 * load balancer spreading one client over N server processes a client may make up to N times the limit.
 */
export class FixedWindowCounter {
  private readonly windows = new Map<string, Window>();
  private nextPruneAt: number;

  constructor(
    private readonly rule: RateLimit,
    private readonly now: () => number = Date.now,
    private readonly maxEntries = DEFAULT_MAX_ENTRIES,
  ) {
    this.nextPruneAt = now() + rule.windowMs;
  }

  /** Counts one request of `id` and says whether it is within the limit. */
  hit(id: string): HitResult {
    const now = this.now();
    const w = this.count(id, now);
    return { allowed: w.count <= this.rule.limit, retryAfterSeconds: this.secondsLeft(w, now) };
  }

  /** Counts one request of `id`: 0 when within the limit, else the seconds to wait (allocates only for a new window). */
  refusal(id: string): number {
    const now = this.now();
    const w = this.count(id, now);
    return w.count <= this.rule.limit ? 0 : this.secondsLeft(w, now);
  }

  private count(id: string, now: number): Window {
    this.prune(now);
    let w = this.windows.get(id);
    if (!w || now >= w.start + this.rule.windowMs) {
      if (w) this.windows.delete(id);
      w = { start: now, count: 0 };
      this.windows.set(id, w);
    }
    w.count++;
    return w;
  }

  private secondsLeft(w: Window, now: number): number {
    return Math.max(1, Math.ceil((w.start + this.rule.windowMs - now) / 1000));
  }

  /** Number of ids currently tracked. */
  get size(): number {
    return this.windows.size;
  }

  private prune(now: number) {
    if (now >= this.nextPruneAt) {
      for (const [id, w] of this.windows) if (now >= w.start + this.rule.windowMs) this.windows.delete(id);
      this.nextPruneAt = now + this.rule.windowMs;
    }
    // Map iteration is insertion order and a renewed window is re-inserted, so the first ids are the oldest.
    if (this.windows.size >= this.maxEntries) {
      let excess = this.windows.size - this.maxEntries + 1;
      for (const id of this.windows.keys()) {
        if (excess-- <= 0) break;
        this.windows.delete(id);
      }
    }
  }
}

/**
 * The id a client address is counted under: IPv4 as is (`::ffff:1.2.3.4` → `1.2.3.4`),
 * IPv6 by its /64 prefix (one subscriber usually holds a whole /64).
 */
export function clientBucket(ip: string | undefined): string {
  if (ip !== lastIp) [lastIp, lastBucket] = [ip, bucketOf(ip)];
  return lastBucket;
}

// The last address and its bucket: consecutive requests mostly come from the same client.
let lastIp: string | undefined;
let lastBucket = bucketOf(undefined);

function bucketOf(ip: string | undefined): string {
  if (!ip) return 'unknown';
  const address = ip.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return `other:${address}`;
  const groups = expandIPv6(address);
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, lowercase hex without leading zeros. */
function expandIPv6(address: string): string[] {
  let text = address.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, v4.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((g) => parseInt(g, 16).toString(16));
}
