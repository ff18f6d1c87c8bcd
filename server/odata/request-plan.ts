/**
 * The dispatcher's decisions about a resource request, made in one place for the Express route (service.ts)
 * and the hot read (hot-read.ts): which set and slot it addresses, whether its sender may make it (auth's
 * `authorize`, with the route's permissions), which query options it asks for and in which format to answer.
 * A rule added here (or in the key store, or in `authorize`) holds on both paths.
 */
import { authorize, basicRefused, type Access } from '../auth/middleware.ts';
import { notFound } from '../errors.ts';
import { EXPORT_FORMATS, negotiate, type ResponseFormat } from './format-negotiation.ts';
import type { ResourcePath } from './parse-path.ts';
import { parseQueryOptions, type QueryOptions } from './query-options.ts';
import { allowedOptions, isSideEffectFreeRead, resolveSlot, type Slot } from './route-resolve.ts';
import { slotPermissions } from './route-permissions.ts';
import type { EntitySetDef } from './service.ts';

/** The set and route a request addresses, once its sender is known to be allowed to use it. */
export interface AuthorizedRoute {
  set: EntitySetDef;
  slot: Slot;
}

/**
 * Resolves `path` on `sets` for `method` and authorizes `access` for it: Basic credentials are refused on
 * anything but GET/HEAD before the set is looked up (401 over 404), an unknown set is 404, a method the route
 * lacks 405, then `authorize` with the route's permissions (401/403). Throws the ApiError to answer.
 */
export function authorizeRoute(
  sets: ReadonlyMap<string, EntitySetDef>,
  path: Extract<ResourcePath, { kind: 'resource' }>,
  method: string,
  access: Access | undefined,
): AuthorizedRoute {
  if (access?.scheme === 'basic' && method !== 'GET' && method !== 'HEAD') throw basicRefused();
  const set = sets.get(path.set);
  if (!set) throw notFound(`No entity set '${path.set}' in this service`);
  const slot = resolveSlot(set, path, method);
  authorize(access, slotPermissions(set, slot, method), isSideEffectFreeRead(slot, method));
  return { set, slot };
}

/** What a request asks for: its query options (those its route allows) and the negotiated response format. */
export interface Negotiated {
  options: QueryOptions;
  format: ResponseFormat;
}

/** Parses the query options a route allows and negotiates the answer's format (collections may also be exported). */
export function negotiateRequest(slot: Slot, query: Record<string, unknown>, accept: string | undefined): Negotiated {
  const options = parseQueryOptions(query, allowedOptions(slot));
  const exportable = slot.kind === 'list' || (slot.kind === 'operation' && !slot.def!.action && slot.def!.returnType.startsWith('Collection('));
  const format = negotiate({ accept, format: options.format }, slot.kind === 'count' ? 'text' : 'json', exportable ? EXPORT_FORMATS : []);
  return { options, format };
}
