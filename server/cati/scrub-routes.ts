/**
 * `/cati/scrubs` (docs/cati-api.md#scrubs): scrub a call list against the telephone blacklist. Not an OData entity
 * set: mounted ahead of the OData dispatcher (app.ts), which gets every other path. The job engine is
 * server/scrub/.
 */
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { actorOf } from '../audit/audit-log.ts';
import { requirePermission } from '../auth/middleware.ts';
import type { AppContext } from '../context.ts';
import { unauthorized } from '../errors.ts';
import { linkOrigin } from '../http/host-rules.ts';
import { uploadFile } from '../files/upload.ts';
import { phoneRegion } from './phone-region-setting.ts';
import { tagPermission, type PermissionTagged } from '../route-table.ts';
import { scrubEngine } from '../scrub/lazy-engine.ts';
import type { ListSource } from '../scrub/list-entries.ts';

/** The list's columns a removed row gains after its own (the scrub adds MatchedRow, Normalized, … after them). */
export const CATI_REMOVED_COLUMNS = ['Reason', 'MatchedId', 'MatchedNumber', 'MatchType'] as const;

/** `scrubs('{Id}')` and its `/kept`, `/removed` (the quotes may come percent-encoded). */
const ONE = /^\/scrubs\((?:'|%27)?([^'%/()]+)(?:'|%27)?\)\/?$/;
const RESULT = /^\/scrubs\((?:'|%27)?([^'%/()]+)(?:'|%27)?\)\/(kept|removed)\/?$/;

/** Basic credentials (accepted under /cati/ for reads) may not start or delete a job (a scrub, a file import). */
export const bearerOnly = tagPermission((req: Request, _res: Response, next: NextFunction) => {
  next(req.authScheme === 'basic' ? unauthorized('Starting or deleting a job needs Authorization: Bearer <key>') : undefined);
}, 'Bearer');

/** The blacklist as a scrub's list (code 1: StartWith; matched with Controller.Check's rules in the worker, scrub/phone-index.ts). */
export const BLACKLIST_LIST: ListSource = {
  extraColumns: CATI_REMOVED_COLUMNS,
  pages: [{ query: { table: 'blacklist', value: 'telephone_number', code: "CASE WHEN type = 'StartWith' THEN '1' ELSE '0' END" }, params: [], listId: 0 }],
};

const PERMISSIONS_LABEL = 'cati_administrate | cati_integrate | cati_read';

/**
 * The router of `/cati/scrubs…`, mounted on `/cati` before the OData dispatcher (anything else falls
 * through to it). It lists its routes for the route table itself, with the key as `(Id)`.
 */
export function catiScrubRouter(ctx: AppContext): RequestHandler & PermissionTagged {
  const router = scrubRoutes(ctx);
  const dispatch: RequestHandler & PermissionTagged = (req, res, next) => router(req, res, next);
  dispatch.routeTable = () => [
    { method: 'POST', path: '/scrubs', access: `Bearer + ${PERMISSIONS_LABEL}` },
    { method: 'GET', path: '/scrubs', access: PERMISSIONS_LABEL },
    { method: 'GET', path: '/scrubs(Id)', access: PERMISSIONS_LABEL },
    { method: 'DELETE', path: '/scrubs(Id)', access: `Bearer + ${PERMISSIONS_LABEL}` },
    { method: 'GET', path: '/scrubs(Id)/kept', access: PERMISSIONS_LABEL },
    { method: 'GET', path: '/scrubs(Id)/removed', access: PERMISSIONS_LABEL },
  ];
  return dispatch;
}

function scrubRoutes(ctx: AppContext): Router {
  const router = Router();
  const allowed = requirePermission('cati_administrate', 'cati_integrate', 'cati_read');
  const upload = uploadFile(ctx.config.dataDir);
  const loaded = () => scrubEngine(ctx);
  const find = async (req: Request) => {
    const { e, service } = await loaded();
    return { e, service, job: await service.find(req.params[0] as string, 'phone', req.principal!) };
  };

  router.post('/scrubs', bearerOnly, allowed, upload, async (req, res) => {
    const { e, service } = await loaded();
    const file = e.uploadedFile(req);
    const request = { filePath: file.path, column: e.formField(req, 'column'), header: e.formField(req, 'header'), sheet: e.formField(req, 'sheet'), dedupe: e.flagField(req, 'dedupe'), annotate: e.flagField(req, 'annotate'), region: await phoneRegion(ctx.store), list: BLACKLIST_LIST };
    const job = await service.start('phone', req.principal!, actorOf(req), file.originalname, () => e.scrubFormat(file.originalname, file.path), request);
    res.status(202).location(`${linkOrigin(req, ctx.config.publicUrl)}/cati/scrubs('${job.id}')`).json(e.jobAnswer(job));
  });
  // Extension: the caller's recent scrubs (the screen's list), newest first.
  router.get('/scrubs', allowed, async (req, res) => {
    const { e, service } = await loaded();
    res.json({ value: (await service.list('phone', req.principal!)).map(e.jobAnswer) });
  });
  router.get(ONE, allowed, async (req, res) => {
    const { e, job } = await find(req);
    res.json(e.jobAnswer(job));
  });
  router.get(RESULT, allowed, async (req, res) => {
    const { e, service, job } = await find(req);
    await e.sendResult(req, res, job, req.params[1] as 'kept' | 'removed', (j, n) => service.resultRows(j, n));
  });
  router.delete(ONE, bearerOnly, allowed, async (req, res) => {
    const { service, job } = await find(req);
    await service.remove(job);
    res.status(204).end();
  });
  return router;
}
