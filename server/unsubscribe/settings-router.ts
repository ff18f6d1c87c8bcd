import { jsonBody } from '../http/json-body.ts';
import { Router } from 'express';
import { requirePermission } from '../auth/middleware.ts';
import type { AppContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { parsePageSettingsPatch, readPageSettings, updatePageSettings } from './page-settings.ts';

/**
 * `GET`/`PUT /optout/settings` (company_administrate): company name and the texts of the unsubscribe
 * pages. PUT changes the fields it carries (null restores a default) and answers the effective settings.
 */
export function settingsRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/settings', requirePermission('company_administrate'), async (_req, res) => {
    res.json(await readPageSettings(ctx.store));
  });
  router.put('/settings', requirePermission('company_administrate'), jsonBody, async (req, res) => {
    res.json(await updatePageSettings(ctx.store, parsePageSettingsPatch(req.body)));
  });
  router.all('/settings', () => {
    throw new ApiError('MethodNotAllowed', '/optout/settings supports GET and PUT', undefined, { Allow: 'GET, HEAD, PUT' });
  });
  return router;
}
