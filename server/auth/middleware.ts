import type { NextFunction, Request, Response } from 'express';
import { forbidden, unauthorized } from '../errors.ts';
import { tagPermission } from '../route-table.ts';
import type { ApiKeyStore, Permission, Principal } from './api-keys.ts';

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
    /** How the key came: `Authorization: Bearer`, or Basic with the key as password (reads under /cati/ only). */
    authScheme?: 'bearer' | 'basic';
  }
}

/** The API key of `Authorization: Basic base64(user:key)` (any user name), or undefined. */
export function basicPassword(header: string): string | undefined {
  const m = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

/** The key of `Authorization: Bearer <key>`, or undefined. */
export function bearerKey(header: string | undefined): string | undefined {
  return header ? /^Bearer +([^\s]+) *$/i.exec(header)?.[1] : undefined;
}

/** Who sends a request: the key store's principal, and how the key came. */
export interface Access {
  principal: Principal;
  scheme: 'bearer' | 'basic';
}

/**
 * Authentication of every request, Express route or hot path alike: the key of `Authorization: Bearer` (or, with
 * `basic`, of Basic credentials) looked up in the key store, which alone decides who a key is (API keys, UI
 * sessions). Undefined when no key came or the store does not know it.
 */
export async function authenticateHeader(keys: ApiKeyStore, header: string | undefined, basic: boolean): Promise<Access | undefined> {
  const bearer = bearerKey(header);
  const key = bearer ?? (basic && header ? basicPassword(header) : undefined);
  const principal = key ? await keys.authenticate(key) : undefined;
  return principal ? { principal, scheme: bearer ? 'bearer' : 'basic' } : undefined;
}

/** 401 for Basic credentials on anything but a side-effect-free read under /cati/. */
export const basicRefused = () =>
  unauthorized('Basic credentials are accepted only on side-effect-free reads under /cati/ (Excel, Power BI); use Authorization: Bearer <key>');

/**
 * The one permission decision of a request, on every path: Basic credentials only on a side-effect-free read
 * (401), then at least one of `permissions` (403; company_administrate holds them all).
 */
export function authorize(access: Access | undefined, permissions: readonly Permission[], sideEffectFreeRead: boolean): void {
  if (access?.scheme === 'basic' && !sideEffectFreeRead) throw basicRefused();
  if (!hasPermission(access?.principal, ...permissions)) throw forbidden(`This operation needs the permission ${permissions.join(' or ')}`);
}

/**
 * Requires `Authorization: Bearer <key>`; nothing else (cookies, query keys) is accepted. With
 * `{basic: true}` (only under /cati/) Basic credentials carrying a key as password are accepted too and
 * marked `req.authScheme = 'basic'`: the OData dispatcher then refuses them (401) on anything but a
 * side-effect-free read (docs/cati-api.md#basic, for Excel's and Power BI's credential dialogs).
 */
export function authenticate(store: ApiKeyStore, options: { basic?: boolean } = {}) {
  return tagPermission(async (req: Request, _res: Response, next: NextFunction) => {
    const access = await authenticateHeader(store, req.get('authorization'), options.basic === true);
    if (!access) return next(unauthorized());
    req.principal = access.principal;
    req.authScheme = access.scheme;
    next();
  }, options.basic ? 'key (Bearer; Basic for reads)' : 'key (Bearer)');
}

/**
 * The permissions that imply another besides itself (docs/people.md#permissions, docs/cati-api.md#decisions): the one place that says so.
 * `company_administrate` implies every permission (checked in hasPermission).
 */
const IMPLIED_BY: Partial<Record<Permission, readonly Permission[]>> = {
  cati_read: ['cati_administrate'],
};

/** True when the principal holds any of the permissions, itself or through one that implies it. */
export function hasPermission(principal: Principal | undefined, ...any: Permission[]): boolean {
  if (!principal) return false;
  if (principal.permissions.has('company_administrate')) return true;
  return any.some((p) => principal.permissions.has(p) || (IMPLIED_BY[p] ?? []).some((q) => principal.permissions.has(q)));
}

/** Middleware: 403 unless the principal holds one of the permissions. */
export function requirePermission(...any: Permission[]) {
  return tagPermission((req: Request, _res: Response, next: NextFunction) => {
    next(hasPermission(req.principal, ...any) ? undefined : forbidden(`This operation needs the permission ${any.join(' or ')}`));
  }, any.join(' | '));
}

/**
 * May the principal administer the opt-out list of this project (null = company-level list)?
 * Company list: company_administrate only. Project list: optout_administrate within its project limit.
 */
export function canAdministerOptOut(principal: Principal | undefined, projectId: string | null): boolean {
  if (!principal) return false;
  if (principal.permissions.has('company_administrate')) return true;
  if (projectId === null) return false;
  if (!principal.permissions.has('optout_administrate')) return false;
  return principal.projects === null || principal.projects.includes(projectId);
}

/**
 * May the principal read (GET) the opt-out list of this project? Its administrators may, and a viewer (
 * docs/people.md#users: "reading opt-out lists: GET only") may read the project lists; the company-level list stays
 * company_administrate's.
 */
export function canReadOptOut(principal: Principal | undefined, projectId: string | null): boolean {
  return canAdministerOptOut(principal, projectId) || (projectId !== null && principal?.optoutRead === true);
}

/** `canReadOptOut` for GET and HEAD, `canAdministerOptOut` for every other method. */
export function mayUseOptOutList(principal: Principal | undefined, projectId: string | null, method: string): boolean {
  return method === 'GET' || method === 'HEAD' ? canReadOptOut(principal, projectId) : canAdministerOptOut(principal, projectId);
}
