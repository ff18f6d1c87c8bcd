import express, { type NextFunction, type Request, type Response } from 'express';
import { ApiError } from '../errors.ts';

/** Media types accepted for JSON bodies (optout seed §1; applies to both interfaces). */
export function isJsonType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || type === 'text/json' || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(type);
}

const parse = express.json({ type: (req) => isJsonType(req.headers['content-type']), limit: '10mb', strict: false });

function hasBody(req: Request): boolean {
  const len = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (len !== undefined && len !== '0');
}

/**
 * Parses JSON bodies of the accepted media types. A body of another type on a write → 415;
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
    next();
  });
}
