import type { NextFunction, Request, Response } from 'express';
import { forbidden, unauthorized } from '../errors.ts';
import type { ApiKeyStore, Permission, Principal } from './api-keys.ts';

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
  }
}

/** Requires `Authorization: Bearer <key>`; nothing else (cookies, query keys, Basic) is accepted. */
export function authenticate(store: ApiKeyStore) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const header = req.get('authorization') ?? '';
    const match = /^Bearer +([^\s]+) *$/i.exec(header);
    const principal = match ? store.authenticate(match[1]!) : undefined;
    if (!principal) return next(unauthorized());
    req.principal = principal;
    next();
  };
}

/** True when the principal holds any of the permissions (company_administrate implies all). */
export function hasPermission(principal: Principal | undefined, ...any: Permission[]): boolean {
  if (!principal) return false;
  if (principal.permissions.has('company_administrate')) return true;
  return any.some((p) => principal.permissions.has(p));
}

/** Middleware: 403 unless the principal holds one of the permissions. */
export function requirePermission(...any: Permission[]) {
  return (req: Request, _res: Response, next: NextFunction) => {
    next(hasPermission(req.principal, ...any) ? undefined : forbidden(`This operation needs the permission ${any.join(' or ')}`));
  };
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
