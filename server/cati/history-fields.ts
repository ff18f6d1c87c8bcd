/** Fields of history records shared by ingest (POST) and closing (PATCH): times and interview answers. */
import { badRequest } from '../errors.ts';
import { requireTime } from '../lib/time.ts';

/** How far ahead of the server's clock a record's time may be (docs/cati-api.md#floor): clocks drift a little. */
export const FUTURE_TOLERANCE_MS = 5 * 60_000;

/** A time field of a record: ISO 8601 and at most 5 minutes in the future, else 400 naming the field. */
export function recordTime(value: unknown, field: string, now = Date.now()): number {
  const ms = requireTime(value, field);
  if (ms > now + FUTURE_TOLERANCE_MS) {
    throw badRequest(`${field} ${new Date(ms).toISOString()} is in the future (the server's clock says ${new Date(now).toISOString()}; at most 5 minutes ahead is accepted)`);
  }
  return ms;
}

/** `Variables: {"Name": "Value"}` of a call record as [name, value] pairs (undefined when absent). */
export function readVariables(r: Record<string, unknown>, pre: string): [string, string | null][] | undefined {
  const v = r.Variables;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw badRequest(`${pre}Variables must be an object {"Name": "Value", ...}`);
  return Object.entries(v as Record<string, unknown>).map(([name, value]) => {
    if (name === '' || name.length > 255) throw badRequest(`${pre}Variables: a variable name must be 1 to 255 characters`);
    if (value !== null && typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw badRequest(`${pre}Variables.${name} must be a string, number, boolean or null`);
    }
    return [name, value === null ? null : String(value)];
  });
}

