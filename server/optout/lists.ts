import { recordAudit } from '../audit/audit-log.ts';
import type { Queryable, Store } from '../db/store.ts';

/** An opt-out list: the company-level list (projectId null) or one project's list. */
export interface OptOutList {
  id: number;
  companyId: number;
  projectId: string | null;
}

interface ListRow {
  id: number;
  company_id: number;
  project_id: string | null;
}

const toList = (r: ListRow): OptOutList => ({ id: r.id, companyId: r.company_id, projectId: r.project_id });

/** Project ids accepted for project-level lists (docs/optout-api.md#lists). */
export const PROJECT_ID = /^p\d+$/;

/** The list with this id, or undefined. */
export async function findList(db: Queryable, id: number): Promise<OptOutList | undefined> {
  const row = await db.get<ListRow>('SELECT id, company_id, project_id FROM optout_lists WHERE id = ?', [id]);
  return row && toList(row);
}

/** The company's list for a project (null = the company-level list), or undefined. */
export async function findListFor(db: Queryable, companyId: number, projectId: string | null): Promise<OptOutList | undefined> {
  const row =
    projectId === null
      ? await db.get<ListRow>('SELECT id, company_id, project_id FROM optout_lists WHERE company_id = ? AND project_id IS NULL', [companyId])
      : await db.get<ListRow>('SELECT id, company_id, project_id FROM optout_lists WHERE company_id = ? AND project_id = ?', [companyId, projectId]);
  return row && toList(row);
}

/** Creates the list unless it exists (idempotent; the partial unique indexes make a race harmless). */
export function ensureList(store: Store, companyId: number, projectId: string | null): Promise<OptOutList> {
  return store.transaction(async (tx) => {
    const insert = 'INSERT INTO optout_lists (company_id, project_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING';
    const created = (await tx.run(insert, [companyId, projectId, Date.now()])).changes > 0;
    const list = (await findListFor(tx, companyId, projectId))!;
    if (created) await recordAudit(tx, { action: 'created', entity: 'optout-lists', entityId: list.id, changes: { companyId, projectId } });
    return list;
  });
}
