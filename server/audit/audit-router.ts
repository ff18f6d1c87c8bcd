/**
 * `GET /admin/audit` (docs/audit.md#audit, `company_administrate`): the audit log newest first, filtered by
 * `from` (inclusive), `to` (exclusive), `entity`, `excludeEntity` (extension: leave one entity out), `actor` (key id or name), keyset pages of `$top` rows
 * with `$skiptoken`/`@odata.nextLink`; `$format=csv` streams every matching row as an attachment.
 * Append-only through the API: any other method → 405. Mounted at `/admin/audit` behind `authenticate`.
 */
import { Router, type Request, type Response } from 'express';
import { requirePermission } from '../auth/middleware.ts';
import type { AppContext } from '../context.ts';
import type { Queryable } from '../db/store.ts';
import { ApiError } from '../errors.ts';
import { csvCell } from '../lib/csv-cell.ts';
import { drained } from '../http/drained.ts';
import { queryParams } from '../http/request-input.ts';
import type { ChangeNames } from '../../common/audit-row.ts';
import { auditPage, encodeCursor, parseAuditQuery, storedPage, storedRowNames, type AuditQuery, type StoredRow } from './audit-query.ts';

/** Rows read per statement while streaming the CSV (the connection is free between chunks). */
const CSV_CHUNK_ROWS = 1000;
const CSV_HEADER = 'Id,Time,ActorKeyId,ActorUserId,Actor,Action,Entity,EntityId,Changes,EntityName,ChangeNames';

/** The request's own URL, absolute, its query kept as sent but for `$skiptoken`, set to `token`. */
function nextLink(req: Request, token: string): string {
  const [path, query = ''] = req.originalUrl.split('?', 2) as [string, string?];
  const kept = query.split('&').filter((part) => part !== '' && !/^(\$|%24)skiptoken(=|$)/i.test(part));
  return `${req.protocol}://${req.get('host') ?? '127.0.0.1'}${path}?${[...kept, `$skiptoken=${token}`].join('&')}`;
}

/** One CSV line of a stored row with its names (`changes` is already JSON text; the time is written as the API's ISO UTC). */
function csvLine(r: StoredRow, names: { EntityName: string | null; ChangeNames: ChangeNames }): string {
  const cells = [
    String(r.id), new Date(r.time).toISOString(), r.actor_key_id === null ? '' : String(r.actor_key_id), r.actor_user_id === null ? '' : String(r.actor_user_id),
    r.actor, r.action, r.entity, r.entity_id ?? '', r.changes, names.EntityName ?? '', JSON.stringify(names.ChangeNames),
  ];
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** Streams every row matching the filters (from the `$skiptoken` on, `$top` ignored) as RFC 4180 CSV with a BOM. */
async function sendCsv(db: Queryable, q: AuditQuery, res: Response): Promise<void> {
  res.status(200);
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', 'attachment; filename="audit-log.csv"');
  res.setHeader('Cache-Control', 'no-store');
  let more = res.write(`\uFEFF${CSV_HEADER}\r\n`);
  let after = q.after;
  for (;;) {
    if (!more && !(await drained(res))) return; // the client went away
    const page = await storedPage(db, q, after, CSV_CHUNK_ROWS);
    const names = await storedRowNames(db, page.rows);
    more = res.write(page.rows.map((r, i) => csvLine(r, names[i]!)).join(''));
    if (!page.next) break;
    after = page.next;
  }
  res.end();
}

/** The audit log's read-only router. */
export function auditRouter(ctx: AppContext): Router {
  const router = Router();
  router.use(requirePermission('company_administrate'));
  router.get('/', async (req, res) => {
    const q = parseAuditQuery(queryParams(req));
    res.setHeader('Cache-Control', 'no-store');
    if (q.format === 'csv') return sendCsv(ctx.store, q, res);
    const page = await auditPage(ctx.store, q);
    res.json({ value: page.rows, ...(page.next ? { '@odata.nextLink': nextLink(req, encodeCursor(page.next)) } : {}) });
  });
  router.all(['/', '/*rest'], () => {
    throw new ApiError('MethodNotAllowed', 'The audit log is append-only: /admin/audit supports GET', undefined, { Allow: 'GET, HEAD' });
  });
  return router;
}
