import { describe, expect, it } from 'vitest';
import { clientBucket, FixedWindowCounter } from '../../server/unsubscribe/rate-limit.ts';

describe('FixedWindowCounter', () => {
  it('allows the limit per window, then refuses with the seconds left in the window', () => {
    let now = 1_000_000;
    const c = new FixedWindowCounter({ limit: 3, windowMs: 60_000 }, () => now);
    expect([c.hit('a'), c.hit('a'), c.hit('a')].every((r) => r.allowed)).toBe(true);
    now += 15_500;
    expect(c.hit('a')).toEqual({ allowed: false, retryAfterSeconds: 45 });
    expect(c.hit('b').allowed).toBe(true);
    now += 44_500;
    expect(c.hit('a')).toEqual({ allowed: true, retryAfterSeconds: 60 });
  });

  it('prunes windows that ended and caps the number of ids', () => {
    let now = 0;
    const c = new FixedWindowCounter({ limit: 1, windowMs: 1000 }, () => now, 50);
    for (let i = 0; i < 40; i++) c.hit(`id${i}`);
    expect(c.size).toBe(40);
    now = 1500;
    c.hit('fresh');
    expect(c.size).toBe(1);
    for (let i = 0; i < 200; i++) c.hit(`flood${i}`);
    expect(c.size).toBeLessThanOrEqual(50);
    expect(c.hit('flood199').allowed).toBe(false);
  });
});

describe('clientBucket', () => {
  it('keeps IPv4 and unwraps IPv4-mapped IPv6', () => {
    expect(clientBucket('203.0.113.7')).toBe('203.0.113.7');
    expect(clientBucket('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientBucket('::FFFF:127.0.0.1')).toBe('127.0.0.1');
  });

  it('counts IPv6 per /64 whatever the notation', () => {
    const a = clientBucket('2001:db8:1:2::1');
    expect(a).toBe('2001:db8:1:2::/64');
    expect(clientBucket('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe(a);
    expect(clientBucket('2001:db8:1:2:0:0:0:9%eth0')).toBe(a);
    expect(clientBucket('2001:db8:1:3::1')).not.toBe(a);
    expect(clientBucket('::1')).toBe('0:0:0:0::/64');
    expect(clientBucket('2001:db8::')).toBe('2001:db8:0:0::/64');
    expect(clientBucket('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
  });

  it('has a bucket for a missing address', () => {
    expect(clientBucket(undefined)).toBe('unknown');
  });
});
