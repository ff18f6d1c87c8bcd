/**
 * The sign-in throttle (docs/people.md#users): more than 10 failed sign-ins for one name, or from one client address,
 * within 15 minutes → 429 with `Retry-After`, even for the right password. Failures are rows of
 * `login_failures` in the database, so every server on a shared PostgreSQL database counts the same ones.
 */
import type { Queryable } from '../db/store.ts';

/** The sliding window failures are counted in. */
export const LOGIN_WINDOW_MS = 15 * 60_000;
/** Failures tolerated within the window; one more and sign-in is refused until the oldest leave it. */
export const LOGIN_FAILURES_ALLOWED = 10;

/**
 * Seconds until a sign-in for `nameKey` from `address` may be tried again, or null when it may be tried now:
 * when more than the allowed failures lie in the window, the time until the newest allowed-plus-first leaves it.
 */
export async function loginRetryAfter(q: Queryable, nameKey: string, address: string, now = Date.now()): Promise<number | null> {
  const since = now - LOGIN_WINDOW_MS;
  const sql = (column: string) => `SELECT at FROM login_failures WHERE ${column} = ? AND at > ? ORDER BY at DESC LIMIT 1 OFFSET ${LOGIN_FAILURES_ALLOWED}`;
  const byName = await q.value<number>(sql('name_key'), [nameKey, since]);
  const byAddress = await q.value<number>(sql('address'), [address, since]);
  const until = Math.max(byName ?? -Infinity, byAddress ?? -Infinity);
  return until === -Infinity ? null : Math.max(1, Math.ceil((Number(until) + LOGIN_WINDOW_MS - now) / 1000));
}

/** Counts one failed sign-in (in the caller's transaction), forgetting failures older than the window. */
export async function recordLoginFailure(tx: Queryable, nameKey: string, address: string, now = Date.now()): Promise<void> {
  await tx.run('DELETE FROM login_failures WHERE at <= ?', [now - LOGIN_WINDOW_MS]);
  await tx.run('INSERT INTO login_failures (name_key, address, at) VALUES (?, ?, ?)', [nameKey, address, now]);
}
