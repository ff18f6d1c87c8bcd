/**
 * The route → permission table, generated from the mounted app itself (listmonk's "every route with its
 * permission in one visible table"): every Express route and every OData route of /cati with the checks in
 * front of it. Permission checks are tagged where they are defined (requirePermission, loadList, authenticate,
 * the OData dispatcher), so the table cannot drift from the code; test/unit/route-permissions.test.ts keeps a
 * snapshot of it in test/unit/__snapshots__/route-permissions.md.
 */
import type { Express } from 'express';

/** One route and what a caller needs to reach it. */
export interface RouteRow {
  method: string;
  path: string;
  access: string;
}

/** A middleware or router that says what it checks (or, for a dispatcher, which routes it serves). */
export interface PermissionTagged {
  permissionLabel?: string;
  routeTable?: () => RouteRow[];
}

/** Marks a middleware with the check it makes, for the route table. */
export function tagPermission<T extends object>(fn: T, label: string): T {
  (fn as PermissionTagged).permissionLabel = label;
  return fn;
}

interface Layer {
  rawPath?: string | string[];
  handle: PermissionTagged & { stack?: Layer[] };
  route?: { path: string; methods: Record<string, boolean>; stack: Layer[] };
}

const join = (a: string, b: string) => (a + (b === '/' ? '' : b)).replace(/\/{2,}/g, '/') || '/';

function walk(stack: Layer[], prefix: string, inherited: { prefix: string; label: string }[], rows: RouteRow[]): void {
  const labels = [...inherited];
  const labelsFor = (path: string, extra: string[] = []) => {
    const own = labels.filter((l) => path === l.prefix || path.startsWith(l.prefix === '/' ? '/' : `${l.prefix}/`) || path.startsWith(`${l.prefix}(`));
    return [...own.map((l) => l.label), ...extra];
  };
  for (const layer of stack) {
    const paths = layer.rawPath === undefined ? ['/'] : Array.isArray(layer.rawPath) ? layer.rawPath : [layer.rawPath];
    for (const p of paths) {
      const full = join(prefix, p);
      if (layer.route) {
        const routeLabels = layer.route.stack.map((l) => l.handle.permissionLabel).filter((l): l is string => !!l);
        for (const m of Object.keys(layer.route.methods)) {
          rows.push({ method: m === '_all' ? 'ALL' : m.toUpperCase(), path: full, access: access(labelsFor(full, routeLabels)) });
        }
      } else if (layer.handle.routeTable) {
        for (const r of layer.handle.routeTable()) rows.push({ ...r, path: join(full, r.path), access: access([...labelsFor(full), r.access]) });
      } else if (layer.handle.stack) {
        walk(layer.handle.stack, full, labelsFor(full).map((label) => ({ prefix: full, label })), rows);
      } else if (layer.handle.permissionLabel) {
        labels.push({ prefix: full, label: layer.handle.permissionLabel });
      }
    }
  }
}

function access(labels: string[]): string {
  return labels.length === 0 ? 'public' : labels.join(' + ');
}

/** Every route of the app with its access rule, in mount order. */
export function routeTable(app: Express): RouteRow[] {
  const rows: RouteRow[] = [];
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '', [], rows);
  return rows;
}
