/**
 * IANA time zones of call centres (docs/cati-api.md#floor): validation through Intl and a centre's "today" as epoch ms.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The canonical spelling of an IANA zone name Intl knows (`europe/amsterdam` → `Europe/Amsterdam`), else undefined. */
export function canonicalTimeZone(name: string): string | undefined {
  // Names only (`Europe/Amsterdam`, `UTC`, `Etc/GMT+1`): offsets such as `+01:00` are not IANA names.
  if (name.length > 64 || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The zone the server runs in (the default of a call centre). */
export function serverTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** Wall-clock fields of an instant in a zone. */
function wallClock(zone: string, ms: number): { y: number; m: number; d: number; utcOfWall: number } {
  const parts: Record<string, number> = {};
  for (const p of formatter(zone).formatToParts(new Date(ms))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const y = parts.year!;
  const m = parts.month!;
  const d = parts.day!;
  return { y, m, d, utcOfWall: Date.UTC(y, m - 1, d, parts.hour!, parts.minute!, parts.second!) };
}

/** Offset of the zone from UTC at an instant, in ms (wall clock minus UTC), to the second. */
function offsetAt(zone: string, ms: number): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return wallClock(zone, whole).utcOfWall - whole;
}

/** The first instant of the local calendar day y-m-d in the zone (later than midnight where DST skips it). */
function startOfLocalDay(zone: string, y: number, m: number, d: number): number {
  const wall = Date.UTC(y, m - 1, d);
  let guess = wall - offsetAt(zone, wall);
  guess = wall - offsetAt(zone, guess);
  if (wallClock(zone, guess).utcOfWall === wall) return guess;
  // Midnight does not exist that day: the first second whose wall-clock date is y-m-d (offsets are within ±15 h).
  let lo = wall - 15 * 3_600_000;
  let hi = wall + 15 * 3_600_000;
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    const w = wallClock(zone, mid);
    if (Date.UTC(w.y, w.m - 1, w.d) >= wall) hi = mid;
    else lo = mid;
  }
  return hi;
}

const todayCache = new Map<string, [number, number]>();

/** `[start, end)` of the calendar day containing `now` in the zone, as epoch ms. */
export function todayIn(zone: string, now: number): [start: number, end: number] {
  const { y, m, d } = wallClock(zone, now);
  const key = `${zone} ${y}-${m}-${d}`;
  let bounds = todayCache.get(key);
  if (!bounds) {
    const next = new Date(Date.UTC(y, m - 1, d + 1));
    bounds = [startOfLocalDay(zone, y, m, d), startOfLocalDay(zone, next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate())];
    if (todayCache.size > 1000) todayCache.clear();
    todayCache.set(key, bounds);
  }
  return bounds;
}
