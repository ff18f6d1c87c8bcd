import { requirePermission } from '../auth/middleware.ts';
import { jsonBody } from '../http/json-body.ts';
import { Router } from 'express';
import type { AppContext } from '../context.ts';
import { addEntryHandler, checkHandler, deleteEntryHandler, pageEntriesHandler } from './entries-routes.ts';
import { exportHandler } from './export-csv.ts';
import { MULTIPART_SLACK, uploadFile } from '../files/upload.ts';
import { importHandler } from './import-routes.ts';
import { ImportService } from './import-service.ts';
import { loadList } from './list-access.ts';
import { createListHandler, getListHandler } from './lists-routes.ts';

/**
 * The opt-out API under /optout/ (optout seed §4, CONTRACT §5): lists, domains, e-mails, import, export,
 * and the Check extension. Authentication happens in app.ts; every /lists/{optOutListId}/… route first
 * runs loadList (400 bad id, 404 unknown list, 403 list the key may not administer).
 */
export function optoutRouter(ctx: AppContext): Router {
  const router = Router();
  const imports = new ImportService(ctx);
  const list = loadList(ctx);
  // A body that can hold no more than an inline import's file stays in memory (import-routes.ts).
  const upload = uploadFile(ctx.config.dataDir, imports.limits.inlineBytes + MULTIPART_SLACK);

  // POST /lists: the body names the project, so only a key that may administer some list gets it parsed.
  router.post('/lists', requirePermission('company_administrate', 'optout_administrate'), jsonBody, createListHandler(ctx));
  router.get('/lists', getListHandler(ctx));

  router.post('/lists/:listId/domains', list, jsonBody, addEntryHandler(ctx, 'domains'));
  router.get('/lists/:listId/domains', list, pageEntriesHandler(ctx, 'domains'));
  router.get('/lists/:listId/domains/export', list, exportHandler(ctx, 'domains'));
  router.post('/lists/:listId/domains/import', list, upload, importHandler(imports, 'domains', ctx.config.dataDir));
  router.delete('/lists/:listId/domains/:entryId', list, deleteEntryHandler(ctx, 'domains'));

  router.post('/lists/:listId/emails', list, jsonBody, addEntryHandler(ctx, 'emails'));
  router.get('/lists/:listId/emails', list, pageEntriesHandler(ctx, 'emails'));
  router.get('/lists/:listId/emails/export', list, exportHandler(ctx, 'emails'));
  router.post('/lists/:listId/emails/import', list, upload, importHandler(imports, 'emails', ctx.config.dataDir));
  router.delete('/lists/:listId/emails/:entryId', list, deleteEntryHandler(ctx, 'emails'));

  router.get('/lists/:listId/Check', list, checkHandler(ctx));
  return router;
}
