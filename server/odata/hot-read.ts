/**
 * The hot read of the OData dispatcher (service.ts `serveHotRead`, called by server/app.ts before Express):
 * `GET /cati/{set}?…` on a set whose collection is the generic one, answered with the dispatcher's own path
 * parser, permission check, option parser, negotiation, query and writer, minus Express's routing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import { basicPassword, bearerKey, hasPermission } from '../auth/middleware.ts';
import type { AppContext } from '../context.ts';
import { socketLinkOrigin } from '../http/host-rules.ts';
import { queryCollection, skipInSteps } from './collection-query.ts';
import { EXPORT_FORMATS, negotiate } from './format-negotiation.ts';
import type { WireOptions } from './format.ts';
import { parseResourcePath } from './parse-path.ts';
import { parseQueryOptions } from './query-options.ts';
import { writeCollection } from './respond.ts';
import { allowedOptions, resolveSlot } from './route-resolve.ts';
import { slotPermissions } from './route-permissions.ts';
import type { EntitySetDef } from './service.ts';

/** The hot read over the dispatcher's sets; see ODataService.serveHotRead for what it answers and declines. */
export function hotRead(ctx: AppContext, sets: ReadonlyMap<string, EntitySetDef>, links: WireOptions['links']): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  return async (req, res) => {
    const url = req.url ?? '';
    // Basic (Excel, Power BI) as under /cati/'s authenticate: a collection read is side-effect free.
    const key = bearerKey(req.headers.authorization) ?? basicPassword(req.headers.authorization ?? '');
    if (req.method !== 'GET' || !url.startsWith('/cati/') || url.includes('#') || !key) return false;
    try {
      const q = url.indexOf('?');
      const path = parseResourcePath(q < 0 ? url.slice(5) : url.slice(5, q));
      if (path.kind !== 'resource' || path.key || path.operation || path.count) return false;
      const set = sets.get(path.set);
      if (!set || set.list === false || set.list?.handler || set.scope || set.postProcess) return false;
      const slot = resolveSlot(set, path, 'GET');
      const principal = await ctx.keys.authenticate(key);
      if (!hasPermission(principal, ...slotPermissions(set, slot, 'GET'))) return false;
      const options = parseQueryOptions(q < 0 ? {} : parseQueryString(url.slice(q + 1)), allowedOptions(slot));
      if (options.apply) return false;
      const format = negotiate({ accept: req.headers.accept, format: options.format }, 'json', EXPORT_FORMATS);
      if (format.kind !== 'json') return false;
      await skipInSteps(ctx.store, set.model, options);
      const page = await queryCollection(ctx.store, set.model, options, { stream: true });
      const serviceRoot = `${socketLinkOrigin(req, ctx.config.publicUrl)}/cati`;
      await writeCollection(res, false, url, set.model, page, { format, serviceRoot, links }, options.select);
      return true;
    } catch (err) {
      if (!res.headersSent) return false;
      res.destroy(err as Error); // cut while streaming: the client sees a truncated answer, never a wrong one
      return true;
    }
  };
}

