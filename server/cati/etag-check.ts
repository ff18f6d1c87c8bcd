import { preconditionFailed } from '../errors.ts';

/**
 * Compares an expected row version (from If-Match, parsed by the router; undefined = no header or `*`)
 * with the current one: a stale version → 412.
 */
export function checkVersion(current: number, expected: number | undefined): void {
  if (expected !== undefined && expected !== current) throw preconditionFailed();
}
