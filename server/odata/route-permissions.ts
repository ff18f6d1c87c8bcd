import type { Permission } from '../auth/api-keys.ts';
import type { RouteRow } from '../route-table.ts';
import { NAMESPACE } from './model.ts';
import { isSideEffectFreeRead, type Slot } from './route-resolve.ts';
import type { EntitySetDef, Route } from './service.ts';

/** Permissions of a set's route when neither the route nor the set names any (docs/people.md#permissions). */
export const DEFAULT_PERMISSIONS: Permission[] = ['cati_administrate'];

/** The read-only permission (docs/people.md#permissions): it reaches every side-effect-free read, nothing else. */
export const READ_PERMISSION: Permission = 'cati_read';

/** The service document and $metadata: any CATI permission. */
export const DOCUMENT_PERMISSIONS: Permission[] = ['cati_administrate', 'cati_integrate', READ_PERMISSION];

/** A route's permissions, plus `cati_read` when the route is a side-effect-free read. */
function routePermissions(set: EntitySetDef, route: Partial<Route> | undefined, read: boolean): Permission[] {
  const own = route?.permissions ?? set.permissions ?? DEFAULT_PERMISSIONS;
  return read && !own.includes(READ_PERMISSION) ? [...own, READ_PERMISSION] : own;
}

/**
 * The permissions a request on a slot needs (any one of them): the route's own, or the set's, or the default,
 * and `cati_read` on a side-effect-free read (the same rule as Basic credentials, docs/cati-api.md#basic, docs/people.md#permissions).
 * The dispatcher and its hot read both ask this.
 */
export function slotPermissions(set: EntitySetDef, slot: Slot, method: string): Permission[] {
  return routePermissions(set, slot.route, isSideEffectFreeRead(slot, method));
}

const rule = (set: EntitySetDef, route: Partial<Route> | undefined, read = false) => routePermissions(set, route, read).join(' | ');

/** The routes the OData dispatcher serves for its registered sets, each with the permissions it needs. */
export function odataRouteTable(sets: readonly EntitySetDef[]): RouteRow[] {
  const rows: RouteRow[] = [
    { method: 'GET', path: '/', access: DOCUMENT_PERMISSIONS.join(' | ') },
    { method: 'GET', path: '/$metadata', access: DOCUMENT_PERMISSIONS.join(' | ') },
  ];
  for (const set of sets) {
    const name = `/${set.model.setName}`;
    const entity = `${name}(${set.model.key.join(',')})`;
    const add = (method: string, path: string, route: Partial<Route> | undefined, read = false) => rows.push({ method, path, access: rule(set, route, read) });
    if (set.list !== false) add('GET', name, set.list || undefined, true);
    if (set.create) add('POST', name, set.create);
    if (set.get !== false) add('GET', entity, set.get || undefined, true);
    if (set.update) add('PUT', entity, set.update);
    if (set.patch ?? set.update) add('PATCH', entity, set.patch ?? set.update);
    if (set.remove) add('DELETE', entity, set.remove);
    for (const op of set.operations ?? []) {
      add(op.def.action ? 'POST' : 'GET', `${op.def.boundToCollection ? name : entity}/${NAMESPACE}.${op.def.name}`, op, !op.def.action && !!op.def.sideEffectFree);
    }
  }
  return rows;
}
