/**
 * The hot read of the OData dispatcher (service.ts `serveHotRead`, called by server/app.ts before Express):
 * `GET /cati/{set}?…` on a set whose collection is the generic one, answered with the dispatcher's own path
 * parser, authentication and authorization (auth's `authenticateHeader`, request-plan's `authorizeRoute`),
 * option parser and negotiation (`negotiateRequest`), query and writer, minus Express's routing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import { authenticateHeader } from '../auth/middleware.ts';
import type { AppContext } from '../context.ts';
import { socketLinkOrigin } from '../http/host-rules.ts';
import { queryCollection, skipInSteps } from './collection-query.ts';
import type { WireOptions } from './format.ts';
import { parseResourcePath } from './parse-path.ts';
import { writeCollection } from './respond.ts';
import { authorizeRoute, negotiateRequest } from './request-plan.ts';
import type { EntitySetDef } from './service.ts';

/** The hot read over the dispatcher's sets; see ODataService.serveHotRead for what it answers and declines. */
export function hotRead(ctx: AppContext, sets: ReadonlyMap<string, EntitySetDef>, links: WireOptions['links']): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  return async (req, res) => {
    const url = req.url ?? '';
    if (req.method !== 'GET' || !url.startsWith('/cati/') || url.includes('#') || !req.headers.authorization) return false;
    try {
      const q = url.indexOf('?');
      const path = parseResourcePath(q < 0 ? url.slice(5) : url.slice(5, q));
      if (path.kind !== 'resource' || path.key || path.operation || path.count) return false;
      const generic = sets.get(path.set);
      if (!generic || generic.list === false || generic.list?.handler || generic.scope || generic.postProcess) return false;
      // The same decisions as the Express route's, in the same functions (Basic as under /cati/'s authenticate).
      const access = await authenticateHeader(ctx.keys, req.headers.authorization, true);
      if (!access) return false;
      const { set, slot } = authorizeRoute(sets, path, 'GET', access);
      const { options, format } = negotiateRequest(slot, q < 0 ? {} : parseQueryString(url.slice(q + 1)), req.headers.accept);
      if (options.apply || format.kind !== 'json') return false;
      await skipInSteps(ctx.store, set.model, options);
      const page = await queryCollection(ctx.store, set.model, options, { stream: true });
      const serviceRoot = `${socketLinkOrigin(req, ctx.config.publicUrl)}/cati`;
      await writeCollection(res, false, url, set.model, page, { format, serviceRoot, links }, options.select);
      return true;
    } catch (err) {
      if (!res.headersSent) return false; // the Express route answers it, its error included
      res.destroy(err as Error); // cut while streaming: the client sees a truncated answer, never a wrong one
      return true;
    }
  };
}
