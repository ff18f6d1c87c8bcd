/**
 * `/cati/blacklist/imports` (docs/cati-api.md#blacklist-imports): import a file into the telephone blacklist
 * as a job. Not an OData entity set: mounted ahead of the OData dispatcher (app.ts), as the scrubs are.
 */
import { Router, type RequestHandler } from 'express';
import { actorOf } from '../audit/audit-log.ts';
import { requirePermission } from '../auth/middleware.ts';
import type { AppContext } from '../context.ts';
import { uploadFile } from '../files/upload.ts';
import { linkOrigin } from '../http/host-rules.ts';
import type { PermissionTagged } from '../route-table.ts';
import { formField, scrubFormat, uploadedFile } from '../scrub/scrub-http.ts';
import { blacklistImports, importAnswer } from './blacklist-file-import.ts';
import { phoneRegion } from './phone-region-setting.ts';
import { bearerOnly } from './scrub-routes.ts';

/** `blacklist/imports('{Id}')` (the quotes may come percent-encoded). */
const ONE = /^\/blacklist\/imports\((?:'|%27)?([^'%/()]+)(?:'|%27)?\)\/?$/;

/** The router of `/cati/blacklist/imports…`, listing its routes for the route table itself. */
export function blacklistImportRouter(ctx: AppContext): RequestHandler & PermissionTagged {
  const router = Router();
  const allowed = requirePermission('cati_administrate');
  const upload = uploadFile(ctx.config.dataDir);
  router.post('/blacklist/imports', bearerOnly, allowed, upload, async (req, res) => {
    const file = uploadedFile(req);
    const field = (name: string) => formField(req, name);
    const request = {
      filePath: file.path, fileName: file.originalname, format: await scrubFormat(file.originalname, file.path),
      sheet: field('sheet'), column: field('column'), header: field('header'), type: field('type'), region: await phoneRegion(ctx.store),
    };
    const job = await blacklistImports(ctx).start(req.principal!, actorOf(req), request);
    res.status(202).location(`${linkOrigin(req, ctx.config.publicUrl)}/cati/blacklist/imports('${job.id}')`).json(importAnswer(job));
  });
  router.get(ONE, allowed, async (req, res) => {
    res.json(importAnswer(await blacklistImports(ctx).find(req.params[0] as string, req.principal!)));
  });
  const dispatch: RequestHandler & PermissionTagged = (req, res, next) => router(req, res, next);
  dispatch.routeTable = () => [
    { method: 'POST', path: '/blacklist/imports', access: 'Bearer + cati_administrate' },
    { method: 'GET', path: '/blacklist/imports(Id)', access: 'cati_administrate' },
  ];
  return dispatch;
}
