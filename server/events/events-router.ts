/**
 * GET /events (docs/events.md#events): Server-Sent Events for `cati_administrate`, `cati_integrate` or `cati_read` keys, Bearer
 * only (401 with `WWW-Authenticate: Bearer`), at most N streams per key (429).
 */
import { Router, type NextFunction, type Request, type Response } from 'express';
import { hashKey } from '../auth/api-keys.ts';
import { authenticate, hasPermission } from '../auth/middleware.ts';
import type { AppContext } from '../context.ts';
import { ApiError, forbidden } from '../errors.ts';
import { tagPermission } from '../route-table.ts';
import type { EventHub } from './event-hub.ts';

/** The /events router over the server's hub. */
export function eventsRouter(ctx: AppContext, hub: EventHub): Router {
  const router = Router();
  // The permission is checked in the handler (after the HEAD refusal); the tag shows it in the route table.
  const stream = tagPermission((req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'HEAD') return next(new ApiError('MethodNotAllowed', 'HEAD is not allowed on /events; allowed: GET', undefined, { Allow: 'GET' }));
    if (!hasPermission(req.principal, 'cati_administrate', 'cati_integrate', 'cati_read')) return next(forbidden('/events needs the permission cati_administrate, cati_integrate or cati_read'));
    const token = /^Bearer +([^\s]+)/i.exec(req.get('authorization') ?? '')![1]!;
    const refused = hub.open(res, hashKey(token), req.get('last-event-id'));
    if (refused) {
      const max = ctx.config.events.maxStreamsPerKey;
      return next(new ApiError('TooManyRequests', `At most ${max} event streams per key are open; close one first`, undefined, { 'Retry-After': '5' }));
    }
  }, 'cati_administrate | cati_integrate | cati_read');
  router.get('/', authenticate(ctx.keys), stream);
  router.all('/', (req, _res, next) => {
    next(new ApiError('MethodNotAllowed', `${req.method} is not allowed on /events; allowed: GET`, undefined, { Allow: 'GET' }));
  });
  return router;
}
