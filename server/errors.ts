import type { ErrorRequestHandler, Request } from 'express';
import { randomUUID } from 'node:crypto';
import { asDatabaseError, DatabaseError } from './db/database-error.ts';
import { DatabaseUnavailableError } from './db/store.ts';

/** OData error codes (docs/cati-api.md#odata); the opt-out interface only uses the status and message. */
export type ErrorCode =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'Conflict'
  | 'PreconditionFailed'
  | 'PayloadTooLarge'
  | 'UnsupportedMediaType'
  | 'MisdirectedRequest'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'InsufficientStorage';

const STATUS: Record<ErrorCode, number> = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  NotAcceptable: 406, // docs/cati-api.md#generic-clients: an unsupported format
  Conflict: 409,
  PreconditionFailed: 412,
  PayloadTooLarge: 413,
  UnsupportedMediaType: 415,
  MisdirectedRequest: 421, // docs/cati-api.md#hosts: a Host that is not allowed
  TooManyRequests: 429,
  InternalError: 500,
  ServiceUnavailable: 503, // the database is unreachable (docs/deployment.md#postgresql); the store reconnects by itself
  InsufficientStorage: 507, // the server's disk is full (RFC 4918 §11.5): nothing was stored; writes work again once space is freed
};

export interface ErrorDetail {
  code: string;
  target?: string;
  message: string;
}

/** The one error type of the server: a status, an OData code and a message safe to show to the client. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = STATUS[code];
  }
}

export const badRequest = (message: string, details?: ErrorDetail[]) => new ApiError('BadRequest', message, details);
export const notFound = (message: string) => new ApiError('NotFound', message);
export const forbidden = (message = 'The API key lacks the permission this operation needs') => new ApiError('Forbidden', message);
export const conflict = (message: string, details?: ErrorDetail[]) => new ApiError('Conflict', message, details);
export const preconditionFailed = (message = 'The If-Match header does not match the current ETag') =>
  new ApiError('PreconditionFailed', message);
export const unauthorized = (message = 'A valid API key is required: Authorization: Bearer <key>') =>
  new ApiError('Unauthorized', message, undefined, { 'WWW-Authenticate': 'Bearer' });
export const methodNotAllowed = (message: string) => new ApiError('MethodNotAllowed', message);

/**
 * The HTTP answer to each kind of DatabaseError (server/db/database-error.ts, which alone reads the engines' codes;
 * an error that did not pass through the store is typed here by the same function). A database server short of
 * space or another resource rolled the transaction back: nothing was written, and it may work again later.
 */
export function fromDatabaseError(err: unknown): ApiError | undefined {
  const typed = asDatabaseError(err);
  if (!(typed instanceof DatabaseError)) return undefined;
  switch (typed.kind) {
    case 'unique':
      return conflict('An entity with the same unique values already exists');
    case 'foreignKey':
      return badRequest('A referenced entity does not exist');
    case 'busy':
      return new ApiError('TooManyRequests', 'The database is busy; try again', undefined, { 'Retry-After': '1' });
    case 'range':
      return badRequest('A value in the request is out of range for the database');
    case 'full':
    case 'exhausted': {
      if (typed.kind === 'full' && !typed.remote) return diskFull();
      const what = typed.kind === 'full' ? 'out of disk space' : 'short of resources';
      return new ApiError('ServiceUnavailable', `The database server is ${what}; nothing was stored; try again later`, undefined, { 'Retry-After': '30' });
    }
  }
}

/** 507: the server's own disk is full. */
export const diskFull = () =>
  new ApiError('InsufficientStorage', "The server's disk is full: nothing was stored. Reads keep working; writes are accepted again once space is freed");

/**
 * File-system errors that mean "no space" by their errno code: ENOSPC (disk full), EDQUOT (quota), EFBIG (file
 * size limit) → 507 (an upload cut short by them is removed by multer).
 */
export function fromFileSystemError(err: unknown): ApiError | undefined {
  const code = (err as { code?: unknown })?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG' ? diskFull() : undefined;
}

/** Turns body-parser / multer failures into ApiErrors by their type or code (never their text); everything else unknown becomes a 500. */
function normalise(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  const known = fromDatabaseError(err) ?? fromFileSystemError(err);
  if (known) return known;
  if (err instanceof DatabaseUnavailableError) {
    return new ApiError('ServiceUnavailable', 'The database is unavailable; try again shortly', undefined, { 'Retry-After': '5' });
  }
  const e = err as { type?: string; status?: number; code?: string; message?: string; field?: string };
  if (e?.type === 'entity.parse.failed') return badRequest('The request body is not valid JSON');
  if (e?.type === 'entity.too.large' || e?.code === 'LIMIT_FILE_SIZE') {
    return new ApiError('PayloadTooLarge', 'The request body is larger than the server accepts');
  }
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return new ApiError('UnsupportedMediaType', 'The request body has an unsupported encoding or charset');
  }
  if (e?.code === 'LIMIT_UNEXPECTED_FILE') return badRequest(`Unexpected file field '${e.field ?? ''}'; send the file as field 'file'`);
  if (typeof e?.code === 'string' && e.code.startsWith('LIMIT_')) return badRequest(`Malformed multipart body: ${e.message ?? e.code}`);
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) return badRequest('Malformed request');
  return undefined;
}

/** Which body shape a path answers errors in. */
export type ErrorStyle = 'odata' | 'message';

export function errorStyleFor(req: Request): ErrorStyle {
  return req.originalUrl.startsWith('/cati') ? 'odata' : 'message';
}

/** Serialises an ApiError as the interface's error body. */
export function errorBody(err: ApiError, style: ErrorStyle): unknown {
  if (style === 'message') return { message: err.message };
  return { error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) } };
}

/**
 * The one error middleware: OData error JSON under /cati/, `{message}` elsewhere,
 * an empty 401 under /optout/ (seed: "Unauthorized, no content"). Never leaks stacks or SQL.
 */
export const errorMiddleware: ErrorRequestHandler = (err, req, res, _next) => {
  let apiError = normalise(err);
  if (!apiError) {
    const requestId = randomUUID();
    console.error(`[${requestId}] ${req.method} ${req.path}:`, err);
    apiError = new ApiError('InternalError', `Internal server error (request id ${requestId})`);
    res.setHeader('X-Request-Id', requestId);
  } else if (apiError.code === 'ServiceUnavailable' || apiError.code === 'InsufficientStorage') {
    console.error(`${req.method} ${req.path}: ${(err as Error).message}`); // one line, no stack: the outage, not a bug
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const [k, v] of Object.entries(apiError.headers ?? {})) res.setHeader(k, v);
  const style = errorStyleFor(req);
  if (style === 'odata') res.setHeader('OData-Version', '4.0');
  if (apiError.status === 401 && style === 'message') {
    res.status(401).end();
    return;
  }
  res.status(apiError.status).json(errorBody(apiError, style));
};
