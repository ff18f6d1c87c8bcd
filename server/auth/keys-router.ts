import { jsonBody } from '../http/json-body.ts';
import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../context.ts';
import { ApiError, badRequest, notFound } from '../errors.ts';
import { parsePositiveId } from '../http/path-params.ts';
import { parsePermissions, parseProjects, type ApiKeyStore, type Permission } from './api-keys.ts';
import { requirePermission } from './middleware.ts';

/** Longest key name accepted (the name only labels a key in lists). */
export const KEY_NAME_MAX = 100;

const BODY_FIELDS = ['name', 'permissions', 'projects'];

interface NewKeyRequest {
  name: string;
  permissions: Permission[];
  projects: string[] | null;
}

/** An array of strings, or a 400 naming the field. */
function stringArray(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw badRequest(`'${field}' must be an array of strings`);
  }
  return value as string[];
}

/** Runs one of the api-keys validators, turning its Error into a 400 with the same message. */
function validated<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw badRequest((err as Error).message);
  }
}

/**
 * Validates a `POST /admin/keys` body `{name, permissions: [...], projects?: [...]}` with the same rules
 * as `npm run keys -- create` (parsePermissions / parseProjects); any problem → 400 naming the field.
 */
export function parseNewKeyRequest(body: unknown): NewKeyRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('The request body must be a JSON object: {name, permissions: [...], projects?: [...]}');
  }
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((k) => !BODY_FIELDS.includes(k));
  if (unknown.length) throw badRequest(`Unknown field '${unknown[0]}' (accepted: ${BODY_FIELDS.join(', ')})`);

  if (typeof fields.name !== 'string' || !fields.name.trim()) throw badRequest("'name' must be a non-empty string");
  const name = fields.name.trim();
  if (name.length > KEY_NAME_MAX) throw badRequest(`'name' must be at most ${KEY_NAME_MAX} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) throw badRequest("'name' must not contain control characters");

  if (fields.permissions === undefined) throw badRequest("'permissions' is required (an array of permission names)");
  const permissions = validated(() => parsePermissions(stringArray(fields.permissions, 'permissions')));
  const projects =
    fields.projects === undefined || fields.projects === null
      ? null
      : validated(() => parseProjects(stringArray(fields.projects, 'projects')));
  return { name, permissions, projects };
}

/** Revokes a key by its path id: 400 for a malformed id, 404 when no active key has it. */
async function revokeKey(store: ApiKeyStore, rawId: string | undefined): Promise<void> {
  const id = parsePositiveId(rawId, 'id');
  if (await store.revoke(id)) return;
  const existing = id ? await store.get(id) : undefined;
  throw notFound(existing ? `API key ${id} is already revoked` : `No API key with id ${rawId}`);
}

function noStore(_req: Request, res: Response, next: () => void) {
  res.setHeader('Cache-Control', 'no-store');
  next();
}

/**
 * Extension: API-key management over HTTP (`company_administrate`), the same operations as `npm run keys`.
 * `GET /` lists stored keys (never a key or its digest); `POST /` creates one and answers the key once (201);
 * `DELETE /{id}` revokes one at once (204). In-memory keys (CATI_API_KEY, UI session) are never listed here.
 * Mounted at `/admin/keys` behind `authenticate`; parses JSON after the permission check.
 */
export function keysRouter(ctx: AppContext): Router {
  const router = Router();
  router.use(noStore, requirePermission('company_administrate'), jsonBody);

  router.get('/', async (_req, res) => {
    res.json(await ctx.keys.list());
  });
  router.post('/', async (req, res) => {
    const { name, permissions, projects } = parseNewKeyRequest(req.body);
    const { key, info } = await ctx.keys.create(name, permissions, projects);
    res.status(201).json({ key, ...info });
  });
  router.all('/', () => {
    throw new ApiError('MethodNotAllowed', '/admin/keys supports GET and POST', undefined, { Allow: 'GET, HEAD, POST' });
  });

  router.delete('/:id', async (req, res) => {
    await revokeKey(ctx.keys, req.params.id);
    res.status(204).end();
  });
  router.all('/:id', () => {
    throw new ApiError('MethodNotAllowed', '/admin/keys/{id} supports DELETE', undefined, { Allow: 'DELETE' });
  });
  return router;
}
