import { isUtf8 } from 'node:buffer';
import express, { type NextFunction, type Request, type Response } from 'express';
import { ApiError, badRequest } from '../errors.ts';

/** Media types accepted for JSON bodies (optout seed §1; applies to both interfaces). */
export function isJsonType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || type === 'text/json' || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(type);
}

/** Limits of a JSON body: its size and how deeply arrays and objects may nest. */
export const JSON_BODY_LIMITS = { maxBytes: 10 * 1024 * 1024, maxDepth: 64 };

/**
 * Refuses bytes that are not UTF-8 (JSON is UTF-8, RFC 8259 §8.1) instead of storing replacement characters.
 * node:buffer's isUtf8 checks without making a string (a strict TextDecoder decoded the whole body only to
 * throw it away: 6 ms of a 1 MB ingest batch, against 0.03 ms).
 */
function verifyUtf8(req: Request, _res: Response, buf: Buffer) {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') return;
  if (!isUtf8(buf)) throw badRequest('The request body is not valid UTF-8');
}

const parse = express.json({
  type: (req) => isJsonType(req.headers['content-type']),
  limit: JSON_BODY_LIMITS.maxBytes,
  strict: false,
  verify: verifyUtf8,
});

/**
 * How deeply `value` nests, counted without recursion and stopping once past `limit`: every later walk of
 * the body (validation, echoing an invalid item, JSON.stringify) may then recurse safely.
 */
export function nestingExceeds(value: unknown, limit: number): boolean {
  // Two parallel stacks, no pair per value: a 10,000-record ingest body is 10,000 objects to look into.
  const values: object[] = [];
  const depths: number[] = [];
  if (value !== null && typeof value === 'object') {
    values.push(value);
    depths.push(0);
  }
  while (values.length > 0) {
    const v = values.pop()!;
    const depth = depths.pop()!;
    if (depth >= limit) return true;
    if (Array.isArray(v)) {
      for (const child of v) {
        if (child !== null && typeof child === 'object') {
          values.push(child);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    for (const key in v) {
      const child = (v as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

function hasBody(req: Request): boolean {
  const len = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (len !== undefined && len !== '0');
}

/** jsonBody as a promise, for a dispatcher that parses only after its own permission check. */
export function readJsonBody(req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    jsonBody(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
  });
}

/**
 * Parses JSON bodies of the accepted media types. Mount it after the route's permission check, so a key
 * that may not write never makes the server read and parse up to 10 MB. A body of another type on a write → 415;
 * an unparsable body → 400 (never an empty object). `req.body` is undefined when no body was sent.
 */
export function jsonBody(req: Request, res: Response, next: NextFunction) {
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'DELETE' || !hasBody(req)) {
    req.body = undefined;
    return next();
  }
  const ct = req.headers['content-type'];
  if (ct && ct.toLowerCase().startsWith('multipart/form-data')) return next();
  if (!isJsonType(ct)) {
    return next(
      new ApiError('UnsupportedMediaType', `Unsupported Content-Type '${ct ?? '(none)'}'; send application/json`),
    );
  }
  parse(req, res, (err?: unknown) => {
    if (err) return next(err);
    if (nestingExceeds(req.body, JSON_BODY_LIMITS.maxDepth)) {
      return next(badRequest(`The request body nests arrays and objects more than ${JSON_BODY_LIMITS.maxDepth} levels deep`));
    }
    next();
  });
}
