import type { Queryable } from '../db/store.ts';
import { badRequest } from '../errors.ts';
import type { DomainItem, EmailItem, EntryKind } from './entries.ts';

/** The paged-list query options of GET …/domains and …/emails (seed §4.4), parsed once. */
export interface PageQuery {
  filterValue: string | null;
  orderColumn: string;
  ascending: boolean;
  page: number;
  pageSize: number;
}

/** Sortable properties (names compared case-insensitively) → their column; nothing else reaches SQL. */
const ORDER_COLUMNS: Record<EntryKind, Record<string, string>> = {
  domains: { domain: 'domain', timestamp: 'timestamp', id: 'id' },
  emails: { emailaddress: 'email_address', timestamp: 'timestamp', id: 'id', unsubscribedfrom: 'unsubscribed_from' },
};
const ORDER_NAMES: Record<EntryKind, string> = {
  domains: 'Domain, Timestamp, Id',
  emails: 'EmailAddress, Timestamp, Id, UnsubscribedFrom',
};
const KNOWN = new Set(['$filtervalue', '$orderby', '$orderascending', '$page', '$pagesize']);
export const MAX_PAGE_SIZE = 1000;

function intParam(raw: string | undefined, name: string, min: number, max: number, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d{1,10}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw badRequest(`${name} must be a whole number from ${min} to ${max}, not '${raw}'`);
  }
  return Number(raw);
}

/** Parses the query options; an unknown $-option or a bad value → 400 naming it. */
export function parsePageQuery(kind: EntryKind, params: Map<string, string>): PageQuery {
  for (const k of params.keys()) {
    if (k.startsWith('$') && !KNOWN.has(k)) {
      throw badRequest(`Unknown query option '${k}'; known: $filterValue, $orderBy, $orderAscending, $page, $pageSize`);
    }
  }
  const orderBy = params.get('$orderby') || (kind === 'domains' ? 'Domain' : 'EmailAddress');
  const orderColumn = ORDER_COLUMNS[kind][orderBy.toLowerCase()];
  if (!orderColumn) throw badRequest(`$orderBy must be one of ${ORDER_NAMES[kind]}, not '${orderBy}'`);
  const asc = params.get('$orderascending');
  if (asc !== undefined && !/^(true|false)$/i.test(asc)) throw badRequest(`$orderAscending must be true or false, not '${asc}'`);
  return {
    filterValue: params.get('$filtervalue') || null,
    orderColumn,
    ascending: asc === undefined || asc.toLowerCase() === 'true',
    page: intParam(params.get('$page'), '$page', 1, 2147483647, 1),
    pageSize: intParam(params.get('$pagesize'), '$pageSize', 1, MAX_PAGE_SIZE, 100),
  };
}

/** `%needle%` for LIKE … ESCAPE '\', with the user's own % _ and \ taken literally. */
export function likeSubstring(needle: string): string {
  return `%${needle.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

interface Row {
  id: number;
  value: string;
  timestamp: number;
  unsubscribed_from?: string | null;
}

/** One page of a list's entries plus the total matching the filter. */
export async function pageEntries(
  db: Queryable,
  kind: EntryKind,
  listId: number,
  q: PageQuery,
): Promise<{ totalCount: number; items: (EmailItem | DomainItem)[] }> {
  const table = kind === 'emails' ? 'optout_emails' : 'optout_domains';
  const valueColumn = kind === 'emails' ? 'email_address' : 'domain';
  const extra = kind === 'emails' ? ', unsubscribed_from' : '';
  const where = `list_id = ?${q.filterValue === null ? '' : ` AND ${valueColumn} LIKE ? ESCAPE '\\'`}`;
  const params: unknown[] = q.filterValue === null ? [listId] : [listId, likeSubstring(q.filterValue)];
  const totalCount = Number((await db.rows(`SELECT count(*) FROM ${table} WHERE ${where}`, params))[0]?.[0] ?? 0);
  const dir = q.ascending ? 'ASC' : 'DESC';
  const order = q.orderColumn === 'id' ? `id ${dir}` : `${q.orderColumn} ${dir}, id ${dir}`;
  const rows = (
    await db.rows(`SELECT id, ${valueColumn}, timestamp${extra} FROM ${table} WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`, [
      ...params,
      q.pageSize,
      (q.page - 1) * q.pageSize,
    ])
  ).map(([id, value, timestamp, unsubscribedFrom]) => ({ id, value, timestamp, unsubscribed_from: unsubscribedFrom }) as Row);
  const items = rows.map((r) =>
    kind === 'emails'
      ? { id: r.id, emailAddress: r.value, timestamp: new Date(r.timestamp).toISOString(), unsubscribedFrom: r.unsubscribed_from ?? null }
      : { id: r.id, domain: r.value, timestamp: new Date(r.timestamp).toISOString() },
  );
  return { totalCount, items };
}
