import { badRequest } from '../errors.ts';

const INT64_MAX = 9223372036854775807n;

/**
 * A path id that must be a positive int64 (else 400). Ids beyond 2^53 are well-formed but can never have
 * been assigned here (SQLite hands out ids in sequence), so they come back as 0, which matches no row → 404.
 */
export function parsePositiveId(raw: string | undefined, name: string): number {
  if (raw === undefined || !/^\d{1,19}$/.test(raw) || BigInt(raw) === 0n || BigInt(raw) > INT64_MAX) {
    throw badRequest(`${name} must be a positive 64-bit integer, not '${raw ?? ''}'`);
  }
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : 0;
}
