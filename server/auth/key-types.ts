/**
 * The wire types of API keys, free of Node imports so the renderer can share them (type-only).
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
