import { recordAudit } from '../audit/audit-log.ts';
import type { Queryable, Store } from '../db/store.ts';
import type { Language } from '../lib/languages.ts';

/**
 * An opt-out list: the company-level list (projectId null) or one project's list, with the language of its
 * unsubscribe pages (null: the respondent's Accept-Language, else the company's default; docs/unsubscribe.md#languages).
 */
export interface OptOutList {
  id: number;
  companyId: number;
  projectId: string | null;
  language: Language | null;
}

interface ListRow {
  id: number;
  company_id: number;
  project_id: string | null;
  language: Language | null;
}

const toList = (r: ListRow): OptOutList => ({ id: r.id, companyId: r.company_id, projectId: r.project_id, language: r.language ?? null });
const COLUMNS = 'id, company_id, project_id, language';

/** Project ids accepted for project-level lists (docs/optout-api.md#lists). */
export const PROJECT_ID = /^p\d+$/;

/** The list with this id, or undefined. */
export async function findList(db: Queryable, id: number): Promise<OptOutList | undefined> {
  const row = await db.get<ListRow>(`SELECT ${COLUMNS} FROM optout_lists WHERE id = ?`, [id]);
  return row && toList(row);
}

/** The company's list for a project (null = the company-level list), or undefined. */
export async function findListFor(db: Queryable, companyId: number, projectId: string | null): Promise<OptOutList | undefined> {
  const row =
    projectId === null
      ? await db.get<ListRow>(`SELECT ${COLUMNS} FROM optout_lists WHERE company_id = ? AND project_id IS NULL`, [companyId])
      : await db.get<ListRow>(`SELECT ${COLUMNS} FROM optout_lists WHERE company_id = ? AND project_id = ?`, [companyId, projectId]);
  return row && toList(row);
}

/**
 * Creates the list unless it exists (idempotent; the partial unique indexes make a race harmless); a `language`
 * given (not undefined) is set on the list, new or existing.
 */
export function ensureList(store: Store, companyId: number, projectId: string | null, language?: Language | null): Promise<OptOutList> {
  return store.transaction(async (tx) => {
    const insert = 'INSERT INTO optout_lists (company_id, project_id, created_at, language) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING';
    const created = (await tx.run(insert, [companyId, projectId, Date.now(), language ?? null])).changes > 0;
    const list = (await findListFor(tx, companyId, projectId))!;
    if (created) {
      const changes = language ? { companyId, projectId, language } : { companyId, projectId };
      await recordAudit(tx, { action: 'created', entity: 'optout-lists', entityId: list.id, changes });
      return list;
    }
    return language === undefined ? list : setListLanguage(tx, list, language);
  });
}

/** Sets a list's language in the caller's transaction, audited when it changes; answers the list. */
export async function setListLanguage(tx: Queryable, list: OptOutList, language: Language | null): Promise<OptOutList> {
  if (list.language === language) return list;
  await tx.run('UPDATE optout_lists SET language = ? WHERE id = ?', [language, list.id]);
  await recordAudit(tx, { action: 'updated', entity: 'optout-lists', entityId: list.id, changes: { language: [list.language, language] } });
  return { ...list, language };
}
