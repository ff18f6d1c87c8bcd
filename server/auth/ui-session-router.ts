import { Router, type Request, type Response } from 'express';
import { recordAudit } from '../audit/audit-log.ts';
import type { AppContext } from '../context.ts';
import { ApiError, badRequest, notFound, unauthorized } from '../errors.ts';
import { parsePositiveId } from '../http/path-params.ts';
import { requirePermission } from './middleware.ts';
import { UI_SESSION_IDLE_MS } from './ui-sessions.ts';

function noStore(_req: Request, res: Response, next: () => void) {
  res.setHeader('Cache-Control', 'no-store');
  next();
}

/**
 * `POST /auth/ui-token` `{token}` (no key): spends the single-use token of a UI link and answers 201
 * `{key, idleTimeoutSeconds}`, a session key with every permission that expires after 12 hours without use.
 * An unknown, used or expired token → 401 (empty, like every 401 outside /cati/). Mounted behind `jsonBody`.
 */
export function uiTokenRouter(ctx: AppContext): Router {
  const router = Router();
  router.use(noStore);
  router.post('/ui-token', async (req, res) => {
    const token = (req.body as { token?: unknown } | undefined)?.token;
    if (typeof token !== 'string' || !/^uit_[A-Za-z0-9_-]{20,100}$/.test(token)) throw badRequest("The body must be {\"token\": \"uit_…\"} from a UI link");
    const session = await ctx.keys.ui.exchange(token);
    if (!session) throw unauthorized('This UI link has expired or was already used');
    res.status(201).json({ key: session.key, idleTimeoutSeconds: UI_SESSION_IDLE_MS / 1000 });
  });
  router.all('/ui-token', () => {
    throw new ApiError('MethodNotAllowed', '/auth/ui-token supports POST', undefined, { Allow: 'POST' });
  });
  return router;
}

/** The caller's own UI session id (from its principal), or null for other keys. */
const ownSession = (req: Request): number | null => req.principal?.uiSessionId ?? null;

/** Revokes a live UI session and audits it in the same transaction; 404 when there is none with that id. */
async function revokeSession(ctx: AppContext, id: number): Promise<void> {
  const revoked = await ctx.store.transaction(async (tx) => {
    if (!(await ctx.keys.ui.revoke(id, Date.now(), tx))) return false;
    await recordAudit(tx, { action: 'revoked', entity: 'sessions', entityId: id, changes: {} });
    return true;
  });
  if (!revoked) throw notFound(`No live UI session with id ${id}`);
}

/**
 * Extension: the live UI sessions (`company_administrate`). `GET /` lists them (never a key), the caller's
 * own marked `current`; `DELETE /current` signs the caller's session out; `DELETE /{id}` revokes one at once.
 * Mounted at `/admin/ui-sessions` behind `authenticate`.
 */
export function uiSessionsRouter(ctx: AppContext): Router {
  const router = Router();
  router.use(noStore, requirePermission('company_administrate'));
  router.get('/', async (req, res) => {
    const own = ownSession(req);
    res.json((await ctx.keys.ui.listLive()).map((s) => ({ ...s, current: s.id === own })));
  });
  router.delete('/current', async (req, res) => {
    const own = ownSession(req);
    if (own === null) throw badRequest('This key is not a UI session');
    await revokeSession(ctx, own);
    res.status(204).end();
  });
  router.delete('/:id', async (req, res) => {
    await revokeSession(ctx, parsePositiveId(req.params.id, 'id'));
    res.status(204).end();
  });
  return router;
}
