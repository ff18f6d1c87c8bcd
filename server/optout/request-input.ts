import type { Request } from 'express';
import { badRequest } from '../errors.ts';

/**
 * A field of a JSON object body, its name matched case-insensitively (as the ASP.NET service the seed
 * describes binds it). Undefined when the body is absent, not an object, or lacks the field.
 */
export function bodyField(body: unknown, name: string): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(body)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

/** The JSON body as an object; none → {}; an array, string, number… → 400. */
export function objectBody(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw badRequest('The request body must be a JSON object');
  return body as Record<string, unknown>;
}

/** The query parameters, names lowercased (matched case-insensitively); a parameter given twice → 400. */
export function queryParams(req: Request): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(req.query as Record<string, unknown>)) {
    const key = k.toLowerCase();
    if (Array.isArray(v) || out.has(key)) throw badRequest(`Query parameter '${k}' is given more than once`);
    out.set(key, typeof v === 'string' ? v : '');
  }
  return out;
}

/** One query parameter (name case-insensitive), or undefined. */
export function singleQuery(req: Request, name: string): string | undefined {
  return queryParams(req).get(name.toLowerCase());
}
