/**
 * The cheap path of `/callhistorywithvariables`: in time order without `$filter`/`$orderby`,
 * a page is merged from the four sources (calls, breaks, logins, logouts), each read in (time, id) order
 * from its time index after a cursor, so a page costs what it holds, never a numbering of the whole union.
 * NumberInOrder continues from the cursor kept in our `$skiptoken` (which still reads as the generic
 * `NumberInOrder` token). Other shapes fall back to the generic query over the union.
 */
import type { Dialect } from '../db/dialect.ts';
import type { Queryable } from '../db/store.ts';
import { badRequest } from '../errors.ts';
import type { CollectionPage, Row } from '../odata/collection-query.ts';
import { QUERY_LIMITS, type QueryOptions } from '../odata/query-options.ts';
import { surveysIn, type HistoryWithVariablesRequest } from './history-with-variables.ts';

/** One source of the union: its order rank, table, time column, SELECT list and survey column (if it has one). */
interface Source {
  ord: number;
  from: string;
  id: string;
  time: string;
  select: string;
  survey?: string;
  /** The time column may be null (an open session's logout): such rows are not events of this source. */
  nullable?: boolean;
  enabled: (r: HistoryWithVariablesRequest) => boolean;
}

const SOURCES: Source[] = [
  { ord: 0, from: 'calls c', id: 'c.id', time: 'c.time', survey: 'c.survey_id', enabled: () => true,
    select: `'Call', 0, c.id, c.time, c.survey_id, c.interview_id, c.interviewer_id, c.telephone_number, c.extended_status, c.duration, c.waiting_time, c.call_center_id` },
  { ord: 1, from: 'breaks b', id: 'b.id', time: 'b.time', survey: 'b.survey_id', enabled: (r) => r.breaks,
    select: `'Break', 1, b.id, b.time, b.survey_id, NULL, b.interviewer_id, NULL, NULL, b.duration, NULL, b.call_center_id` },
  { ord: 2, from: 'sessions x', id: 'x.id', time: 'x.login_time', enabled: (r) => r.logins,
    select: `'Login', 2, x.id, x.login_time, NULL, NULL, x.interviewer_id, NULL, NULL, NULL, NULL, x.call_center_id` },
  { ord: 3, from: 'sessions x', id: 'x.id', time: 'x.logout_time', nullable: true, enabled: (r) => r.logins,
    select: `'Logout', 3, x.id, x.logout_time, NULL, NULL, x.interviewer_id, NULL, NULL, (x.logout_time - x.login_time) / 1000, NULL, x.call_center_id` },
];

type Cursor = [time: number, ord: number, id: number];
interface Token {
  o: string;
  v: [number];
  c?: Cursor;
}

function readToken(text: string): Token | undefined {
  try {
    const t = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Token;
    const c = t.c;
    if (t.o !== 'NumberInOrder+' || !Array.isArray(t.v) || !Number.isSafeInteger(t.v[0])) return undefined;
    return Array.isArray(c) && c.length === 3 && c.every((x) => Number.isSafeInteger(x)) ? t : undefined;
  } catch {
    return undefined;
  }
}

interface Condition {
  sql: string;
  params: unknown[];
}

/** The request's window (and surveys) for one source; an absent bound is left out (docs/cati-api.md#callhistorywithvariables). */
function window(d: Dialect, s: Source, r: HistoryWithVariablesRequest): Condition {
  const parts = s.nullable ? [`${s.time} IS NOT NULL`] : ['1 = 1'];
  const params: unknown[] = [];
  if (r.bounds.start) {
    parts.push(`${s.time} >= ?`);
    params.push(r.start);
  }
  if (r.bounds.end) {
    parts.push(`${s.time} < ?`);
    params.push(r.end);
  }
  if (s.survey) {
    parts.push(surveysIn(d, s.survey));
    params.push(r.surveysJson, r.surveysJson);
  }
  return { sql: parts.join(' AND '), params };
}

/** The condition "after the cursor" for one source (rows order by time, then source rank, then id). */
function after(s: Source, c: Cursor | undefined): Condition {
  if (!c) return { sql: '1 = 1', params: [] };
  if (s.ord > c[1]) return { sql: `${s.time} >= ?`, params: [c[0]] };
  if (s.ord < c[1]) return { sql: `${s.time} > ?`, params: [c[0]] };
  return { sql: `${s.time} >= ? AND (${s.time} > ? OR ${s.id} > ?)`, params: [c[0], c[0], c[2]] };
}

/** Whether the request can take the cheap path: time order, no $filter, and a token of ours if any. */
export function cheapPathApplies(options: QueryOptions): boolean {
  if (options.filter || options.apply) return false;
  const o = options.orderby;
  const ordered = o.length === 0 || (o.length === 1 && !o[0]!.desc && o[0]!.expr.kind === 'property' && o[0]!.expr.path.join('/') === 'NumberInOrder');
  return ordered && (options.skiptoken === undefined || readToken(options.skiptoken) !== undefined);
}

/** Reads one page (with $count when asked) along the cheap path; rows keyed by property name. */
export async function historyWithVariablesPage(
  db: Queryable,
  request: HistoryWithVariablesRequest,
  options: QueryOptions,
  pageSize = QUERY_LIMITS.pageSize,
): Promise<CollectionPage> {
  const sources = SOURCES.filter((s) => s.enabled(request));
  let count: number | undefined;
  if (options.count) {
    count = 0;
    for (const s of sources) {
      const w = window(db.dialect, s, request);
      count += Number((await db.rows(`SELECT count(*) FROM ${s.from} WHERE ${w.sql}`, w.params))[0]?.[0] ?? 0);
    }
  }
  const token = options.skiptoken === undefined ? undefined : readToken(options.skiptoken);
  if (options.skiptoken !== undefined && !token) throw badRequest('Invalid $skiptoken: use the @odata.nextLink of the previous page');
  const skip = options.skip ?? 0;
  const take = options.top ?? pageSize + 1;
  if (take === 0) return { rows: [], count };
  const cursor = token?.c;
  const read: unknown[][] = [];
  for (const s of sources) {
    const w = window(db.dialect, s, request);
    const a = after(s, cursor);
    read.push(...(await db.rows(`SELECT ${s.select} FROM ${s.from} WHERE ${w.sql} AND ${a.sql} ORDER BY ${s.time}, ${s.id} LIMIT ?`, [...w.params, ...a.params, skip + take])));
  }
  const merged = read
    .sort((a, b) => (a[3] as number) - (b[3] as number) || (a[1] as number) - (b[1] as number) || (a[2] as number) - (b[2] as number))
    .slice(skip, skip + take);
  const first = (token ? token.v[0] + 1 : 0) + skip;
  let rows = merged.map((r, n): Row => ({
    NumberInOrder: first + n, EventType: r[0], Id: r[2], Time: r[3], SurveyId: r[4], InterviewId: r[5], InterviewerId: r[6],
    TelephoneNumber: r[7], ExtendedStatus: r[8], Duration: r[9], WaitingTime: r[10], CallCenterId: r[11],
  }));
  let nextSkiptoken: string | undefined;
  if (options.top === undefined && rows.length > pageSize) {
    rows = rows.slice(0, pageSize);
    const last = merged[pageSize - 1]!;
    const next: Token = { o: 'NumberInOrder+', v: [first + pageSize - 1], c: [last[3] as number, last[1] as number, last[2] as number] };
    nextSkiptoken = Buffer.from(JSON.stringify(next)).toString('base64url');
  }
  await addNames(db, rows);
  return { rows, count, nextSkiptoken };
}

/** Rows a large `$skip` moves over per turn of the event loop. */
const SKIP_STEP = 2000;

/**
 * Turns a large `$skip` into our `$skiptoken` SKIP_STEP rows at a time, yielding between steps, so the
 * page itself merges only a small remainder (docs/limits.md#limits). Mutates `options`.
 */
export async function skipInSteps(db: Queryable, request: HistoryWithVariablesRequest, options: QueryOptions): Promise<void> {
  for (let i = 0; (options.skip ?? 0) > SKIP_STEP && i < 1_000_000; i++) {
    const step = await historyWithVariablesPage(db, request, { ...options, skip: 0, top: undefined, count: false }, SKIP_STEP);
    if (!step.nextSkiptoken) return; // fewer rows remain than one step: the page merges them
    options.skiptoken = step.nextSkiptoken;
    options.skip = options.skip! - SKIP_STEP;
    await new Promise((ok) => setImmediate(ok));
  }
}

/** SurveyName and InterviewerName of a page, one query each. */
async function addNames(db: Queryable, rows: Row[]): Promise<void> {
  const names = async (table: string, type: 'int' | 'text', ids: unknown[]) =>
    new Map((await db.rows(`SELECT id, name FROM ${table} WHERE id IN ${db.dialect.jsonValues(type)}`, [JSON.stringify([...new Set(ids)])])) as [unknown, string][]);
  const surveys = await names('surveys', 'text', rows.map((r) => r.SurveyId).filter((x) => x !== null));
  const interviewers = await names('interviewers', 'int', rows.map((r) => r.InterviewerId).filter((x) => x !== null));
  for (const r of rows) {
    r.SurveyName = surveys.get(r.SurveyId) ?? null;
    r.InterviewerName = interviewers.get(r.InterviewerId) ?? null;
  }
}
