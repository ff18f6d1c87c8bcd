/**
 * The wire types of API keys, free of Node imports so the renderer can share them (type-only).
 */

/**
 * Every permission a key may hold (docs/people.md#permissions). `cati_read` is every side-effect-free read under
 * /cati/ and GET /events: the permission for Excel, Power BI and report scripts.
 */
export const PERMISSIONS = ['cati_administrate', 'cati_integrate', 'cati_read', 'optout_administrate', 'company_administrate'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** A stored API key as `GET /admin/keys` and `npm run keys -- list --json` show it (never the key itself). */
export interface ApiKeyInfo {
  id: number;
  name: string;
  prefix: string;
  permissions: Permission[];
  projects: string[] | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}
