import { badRequest } from '../errors.ts';

/** A JSON request body read as an object, or a 400 saying what was expected. */
export function bodyObject(body: unknown, what: string): Record<string, unknown> {
  if (body === undefined) throw badRequest(`The request needs a JSON body: ${what}`);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest(`The request body must be a JSON object: ${what}`);
  return body as Record<string, unknown>;
}

/** Rejects properties the entity does not know (a typo must not be silently ignored). */
export function rejectUnknown(body: Record<string, unknown>, known: readonly string[], prefix = ''): void {
  for (const k of Object.keys(body)) {
    if (k.startsWith('@odata.')) continue;
    if (!known.includes(k)) {
      const hint = known.find((n) => n.toLowerCase() === k.toLowerCase());
      throw badRequest(`${prefix}Unknown property '${k}'${hint ? ` (did you mean '${hint}'?)` : ''}`);
    }
  }
}

const INT32_MAX = 2147483647;

/*
 * The readers below take their limits as an options object and the error prefix (`Record 3: `) apart: a batch
 * reads thousands of records, so its options are constants built once, not an object per field per record.
 */

/** Optional string field (null allowed when nullable); undefined when absent. */
export function optString(b: Record<string, unknown>, name: string, opts: { max?: number; nullable?: boolean } = {}, prefix = ''): string | null | undefined {
  const v = b[name];
  if (v === undefined) return undefined;
  if (v === null && opts.nullable) return null;
  if (typeof v !== 'string') throw badRequest(`${prefix}${name} must be a string${opts.nullable ? ' or null' : ''}`);
  if (opts.max !== undefined && v.length > opts.max) throw badRequest(`${prefix}${name} is longer than ${opts.max} characters`);
  return v;
}

/** Optional int field within [min, max] (int32 by default). */
export function optInt(b: Record<string, unknown>, name: string, opts: { min?: number; max?: number; nullable?: boolean } = {}, prefix = ''): number | null | undefined {
  const v = b[name];
  if (v === undefined) return undefined;
  if (v === null && opts.nullable) return null;
  const min = opts.min ?? -INT32_MAX - 1;
  const max = opts.max ?? INT32_MAX;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw badRequest(`${prefix}${name} must be a whole number from ${min} to ${max}${opts.nullable ? ' or null' : ''}`);
  }
  return v;
}

/** Optional boolean field. */
export function optBool(b: Record<string, unknown>, name: string, opts: { nullable?: boolean } = {}, prefix = ''): boolean | null | undefined {
  const v = b[name];
  if (v === undefined) return undefined;
  if (v === null && opts.nullable) return null;
  if (typeof v !== 'boolean') throw badRequest(`${prefix}${name} must be true or false${opts.nullable ? ' or null' : ''}`);
  return v;
}

/** Optional enum field given as one of its names. */
export function optEnum<T extends string>(b: Record<string, unknown>, name: string, values: readonly T[], prefix = ''): T | undefined {
  const v = b[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) {
    throw badRequest(`${prefix}${name} must be one of ${values.join(', ')}`);
  }
  return v as T;
}

/** Optional array of int32 ids (e.g. ParentGroups), deduplicated. */
export function optIdArray(b: Record<string, unknown>, name: string, prefix = ''): number[] | undefined {
  const v = b[name];
  if (v === undefined) return undefined;
  if (v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'number' || !Number.isInteger(x) || x < 1 || x > INT32_MAX)) {
    throw badRequest(`${prefix}${name} must be an array of positive whole numbers (ids)`);
  }
  return [...new Set(v as number[])];
}

/** Required string (non-empty after trimming). */
export function reqString(b: Record<string, unknown>, name: string, opts: { max?: number } = {}, prefix = ''): string {
  const v = optString(b, name, opts, prefix);
  if (v === undefined || v === null || v.trim() === '') throw badRequest(`${prefix}${name} is required`);
  return v.trim();
}

export const SURVEY_ID = /^p\d{1,18}$/;
