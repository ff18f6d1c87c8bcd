import type { Permission } from '../auth/api-keys.ts';
import type { RouteRow } from '../route-table.ts';
import { NAMESPACE } from './model.ts';
import type { EntitySetDef, Route } from './service.ts';

/** Permissions of a set's route when neither the route nor the set names any (CONTRACT §2). */
export const DEFAULT_PERMISSIONS: Permission[] = ['cati_administrate'];

/** The service document and $metadata: either CATI permission. */
export const DOCUMENT_PERMISSIONS: Permission[] = ['cati_administrate', 'cati_integrate'];

/** The permissions a set's route needs: the route's own, else the set's, else DEFAULT_PERMISSIONS (one rule for every path). */
export function routePermissions(set: EntitySetDef, route: Partial<Route> | undefined): readonly Permission[] {
  return route?.permissions ?? set.permissions ?? DEFAULT_PERMISSIONS;
}

const rule = (set: EntitySetDef, route: Partial<Route> | undefined) => routePermissions(set, route).join(' | ');

/** The routes the OData dispatcher serves for its registered sets, each with the permissions it needs. */
export function odataRouteTable(sets: readonly EntitySetDef[]): RouteRow[] {
  const rows: RouteRow[] = [
    { method: 'GET', path: '/', access: DOCUMENT_PERMISSIONS.join(' | ') },
    { method: 'GET', path: '/$metadata', access: DOCUMENT_PERMISSIONS.join(' | ') },
  ];
  for (const set of sets) {
    const name = `/${set.model.setName}`;
    const entity = `${name}(${set.model.key.join(',')})`;
    const add = (method: string, path: string, route: Partial<Route> | undefined) => rows.push({ method, path, access: rule(set, route) });
    if (set.list !== false) add('GET', name, set.list || undefined);
    if (set.create) add('POST', name, set.create);
    if (set.get !== false) add('GET', entity, set.get || undefined);
    if (set.update) add('PUT', entity, set.update);
    if (set.patch ?? set.update) add('PATCH', entity, set.patch ?? set.update);
    if (set.remove) add('DELETE', entity, set.remove);
    for (const op of set.operations ?? []) {
      add(op.def.action ? 'POST' : 'GET', `${op.def.boundToCollection ? name : entity}/${NAMESPACE}.${op.def.name}`, op);
    }
  }
  return rows;
}
