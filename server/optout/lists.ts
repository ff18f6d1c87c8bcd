import { recordAuditSync } from '../audit/audit-log.ts';
import type { Db } from '../db/open.ts';

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

/** Project ids accepted for project-level lists (CONTRACT §5). */
export const PROJECT_ID = /^p\d+$/;

/** The list with this id, or undefined. */
export function findList(db: Db, id: number): OptOutList | undefined {
  const row = db.prepare<[number], ListRow>('SELECT id, company_id, project_id FROM optout_lists WHERE id = ?').get(id);
  return row && toList(row);
}

/** The company's list for a project (null = the company-level list), or undefined. */
export function findListFor(db: Db, companyId: number, projectId: string | null): OptOutList | undefined {
  const row =
    projectId === null
      ? db
          .prepare<[number], ListRow>('SELECT id, company_id, project_id FROM optout_lists WHERE company_id = ? AND project_id IS NULL')
          .get(companyId)
      : db
          .prepare<[number, string], ListRow>('SELECT id, company_id, project_id FROM optout_lists WHERE company_id = ? AND project_id = ?')
          .get(companyId, projectId);
  return row && toList(row);
}

/** Creates the list unless it exists (idempotent; the partial unique indexes make a race harmless). */
export function ensureList(db: Db, companyId: number, projectId: string | null): OptOutList {
  return db.transaction(() => {
    const insert = db.prepare('INSERT INTO optout_lists (company_id, project_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING');
    const created = insert.run(companyId, projectId, Date.now()).changes > 0;
    const list = findListFor(db, companyId, projectId)!;
    if (created) recordAuditSync(db, { action: 'created', entity: 'optout-lists', entityId: list.id, changes: { companyId, projectId } });
    return list;
  }).immediate();
}
