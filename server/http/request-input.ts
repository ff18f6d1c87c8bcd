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

/** Percent-decodes a query component; a malformed escape is kept as written (like Express's own parser). */
function decodeComponent(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * The query parameters, names lowercased (matched case-insensitively); a parameter given twice → 400.
 * A `+` is taken literally, not as a space: no value of this API (an address, a domain, a filter for them,
 * a number, a project id) can hold a space, while `user+tag@example.com` put into a URL unencoded is common.
 */
export function queryParams(req: Request): Map<string, string> {
  const out = new Map<string, string>();
  const q = req.originalUrl.indexOf('?');
  if (q < 0) return out;
  for (const part of req.originalUrl.slice(q + 1).split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = decodeComponent(eq < 0 ? part : part.slice(0, eq));
    const key = name.toLowerCase();
    if (out.has(key)) throw badRequest(`Query parameter '${name}' is given more than once`);
    out.set(key, eq < 0 ? '' : decodeComponent(part.slice(eq + 1)));
  }
  return out;
}

/** One query parameter (name case-insensitive), or undefined. */
export function singleQuery(req: Request, name: string): string | undefined {
  return queryParams(req).get(name.toLowerCase());
}
