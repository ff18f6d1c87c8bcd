/**
 * The three roles of user accounts (docs/people.md#roles) and what each may reach: the permissions a role's session
 * carries, and the route group × role table that says the same thing from the caller's side. The table is
 * walked on a real server, both engines, by test/api/role-matrix.test.ts: a role given a permission that
 * opens a group it should not reach (or the other way round) fails there.
 */
import { PERMISSIONS, type Permission } from '../../common/key-types.ts';
import { ROLES, type Role } from '../../common/user-types.ts';

export { ROLES, type Role };

/** What a role's session carries. */
export interface RoleGrant {
  permissions: readonly Permission[];
  /** Reads (GET) of the project opt-out lists a supervisor administers, without any change. */
  optoutRead: boolean;
}

/**
 * administrator: every permission; supervisor: the CATI API and every project's opt-out list; viewer: reads only
 * (CATI reads and the project opt-out lists). A supervisor does not administer the company-level opt-out list
 * (that is `company_administrate`), so a viewer does not read it either.
 */
export const ROLE_GRANTS: Record<Role, RoleGrant> = {
  administrator: { permissions: PERMISSIONS, optoutRead: true },
  supervisor: { permissions: ['cati_administrate', 'optout_administrate'], optoutRead: true },
  viewer: { permissions: ['cati_read'], optoutRead: true },
};

/** One group of routes and whether each role reaches it. */
export interface RouteGroupAccess {
  group: string;
  administrator: boolean;
  supervisor: boolean;
  viewer: boolean;
}

/** The role matrix: every route group × the three roles (true = allowed, false = 403). */
export const ROLE_MATRIX: readonly RouteGroupAccess[] = [
  { group: 'CATI reads (collections, entities, $count, side-effect-free functions)', administrator: true, supervisor: true, viewer: true },
  { group: 'CATI writes (POST, PATCH, DELETE, imports)', administrator: true, supervisor: true, viewer: false },
  { group: 'CATI effectful functions (Lock, Unlock, Assign…)', administrator: true, supervisor: true, viewer: false },
  { group: 'CATI ingest (cati_integrate)', administrator: true, supervisor: false, viewer: false },
  { group: 'Live events (GET /events)', administrator: true, supervisor: true, viewer: true },
  { group: 'Project opt-out list reads (entries, export, Check)', administrator: true, supervisor: true, viewer: true },
  { group: 'Project opt-out list changes (add, import, delete)', administrator: true, supervisor: true, viewer: false },
  { group: 'Company-level opt-out list', administrator: true, supervisor: false, viewer: false },
  { group: 'Opt-out settings', administrator: true, supervisor: false, viewer: false },
  { group: 'Company settings read (GET /admin/settings)', administrator: true, supervisor: true, viewer: true },
  { group: 'Company settings change (PATCH /admin/settings, the phone-region preview)', administrator: true, supervisor: false, viewer: false },
  { group: 'Administration (users, API keys, UI sessions, audit log)', administrator: true, supervisor: false, viewer: false },
  { group: 'Own session (GET /auth/me, POST /auth/logout)', administrator: true, supervisor: true, viewer: true },
];

/** Whether `value` is a role name. */
export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);
