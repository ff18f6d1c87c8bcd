/**
 * Exports of any collection query (docs/cati-api.md#exports, docs/limits.md#limits): `$format=csv|xlsx` or the matching `Accept`.
 * Every matching row (no server page; `$top`/`$skip` still apply), header = property names in `$select`
 * order, `Content-Disposition: attachment; filename="<set>-<UTC date>.<ext>"`. The rows come from the
 * same plan as `$apply`/JSON (apply-query.ts), in the store's dialect: they are first counted through the
 * store in slices (more than the limit → 400 before any byte is sent), then read with `store.chunks` (a
 * read-only connection of its own on SQLite, a cursor on PostgreSQL) in batches of the writer's `batchRows`
 * arrays and handed to the writer a batch at a time, with back-pressure (wait for 'drain') and a yield to
 * the event loop every ~10 ms of work, so memory stays flat and other requests go on. A client that goes
 * away stops the loop (and releases the reader).
 */
import type { Request, Response } from 'express';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { AppContext } from '../context.ts';
import type { Store } from '../db/store.ts';
import { badRequest } from '../errors.ts';
import { countSliceStatement, countStatement, planQuery, rowsStatement } from './apply-query.ts';
import type { CollectionScope, Row } from './collection-query.ts';
import { csvWriter } from './export-csv.ts';
import { xlsxWriter } from './export-xlsx.ts';
import { EXPORT_MEDIA_TYPES } from './format-negotiation.ts';
import type { EdmType, EntityModel } from './model.ts';
import type { QueryOptions } from './query-options.ts';
import type { SqlFragment } from './sql-fragment.ts';

/** docs/limits.md#limits: rows per export (an XLSX sheet holds 1,048,576 rows, one of them the header). */
export const EXPORT_LIMITS: Readonly<Record<string, number>> = { csv: 1_000_000, xlsx: 1_048_575 };

/** Work done between two yields to the event loop. */
const SLICE_MS = 10;
/** A FROM that is one table (no join, no subquery): its count(*) needs no row visits. */
const BARE_TABLE = /^\w+$/;
/** Rows counted by one statement of the limit check. */
const COUNT_SLICE = 100_000;

/** One column of an export: its header and the EDM type that decides how values are written. */
export interface ExportColumn {
  name: string;
  type: EdmType;
}

/**
 * How a format writes rows. `rows` takes a batch of raw rows (values in column order; trailing values
 * beyond the columns are ignored). `flush` hands buffered output on and says whether more may come now;
 * when not, `wait` resolves once it may (false: the client went away).
 */
export interface ExportWriter {
  /** Rows per batch: as many as the format writes in a few milliseconds (checks of clock and buffer come between batches). */
  readonly batchRows: number;
  start(columns: ExportColumn[]): void;
  rows(batch: unknown[][]): void;
  flush(): boolean;
  wait(): Promise<boolean>;
  end(): Promise<void>;
}

/**
 * Columns a set adds to its exports (e.g. one per requested variable of /callhistorywithvariables):
 * `sql` gets the SQL of a result property by name (undefined when the rows no longer have it) and
 * answers one value expression per name, or undefined when they cannot be computed for these rows.
 */
export interface ExportColumns {
  names: string[];
  sql(column: (name: string) => string | undefined): SqlFragment[] | undefined;
}

/** What a collection route hands to the export: a query (model, scope, extra columns) or computed rows. */
export interface ExportSource {
  model: EntityModel;
  scope?: CollectionScope;
  columns?: ExportColumns;
  rows?: Row[];
}

/** A cooperative loop: `tick()` after each unit of work yields every SLICE_MS; false once the client is gone. */
function scheduler(res: Response) {
  let since = performance.now();
  return async (): Promise<boolean> => {
    if (performance.now() - since < SLICE_MS) return !res.destroyed;
    await yieldToLoop();
    since = performance.now();
    return !res.destroyed;
  };
}

interface Prepared {
  columns: ExportColumn[];
  /** The rows in batches of at most `size`. */
  batches(size: number): AsyncIterable<unknown[][]>;
  /** Counts up to `max + 1` rows, yielding on the way. */
  count(max: number, tick: () => Promise<boolean>): Promise<number>;
}

function fromRows(source: ExportSource & { rows: Row[] }, options: QueryOptions): Prepared {
  const props = source.model.properties.filter((p) => !p.virtual && !p.writeOnly);
  const picked = options.select ? options.select.map((n) => props.find((p) => p.name === n) ?? badName(n)) : props;
  const rows = source.rows.slice(options.skip ?? 0, options.top === undefined ? undefined : (options.skip ?? 0) + options.top);
  return {
    columns: picked.map((p) => ({ name: p.name, type: p.type })),
    async *batches(size) {
      for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size).map((r) => picked.map((p) => r[p.name]));
    },
    count: () => Promise.resolve(rows.length),
  };
}

function badName(name: string): never {
  throw badRequest(`Property '${name}' cannot be selected here`);
}

function fromQuery(store: Store, source: ExportSource, options: QueryOptions): Prepared {
  const plan = planQuery(source.model, store.dialect, options, source.scope);
  const column = (name: string) => plan.stage.model.properties.find((p) => p.name === name && !p.virtual)?.column;
  const extra = source.columns?.sql(column);
  const columns: ExportColumn[] = plan.columns.map((p) => ({ name: p.name, type: p.type }));
  if (extra) columns.push(...source.columns!.names.map((name): ExportColumn => ({ name, type: 'Edm.String' })));
  const skip = options.skip ?? 0;
  return {
    columns,
    batches(size) {
      const statement = rowsStatement(plan, options.top, skip, extra ?? []);
      return store.chunks(statement.sql, statement.params, size);
    },
    async count(max, tick) {
      // A whole table without conditions: one count(*), which SQLite answers from the b-tree's page
      // headers (about 0.1 ms at 1,000,000 rows). Otherwise count(*) over slices of COUNT_SLICE rows
      // (seeking on the key where there is one): the database counts without handing rows to JS, and the
      // loop yields between slices. $skip/$top apply to the total.
      const limit = options.top === undefined ? max + 1 : Math.min(options.top, max + 1);
      if (plan.stage.where.length === 0 && BARE_TABLE.test(plan.stage.from.sql)) {
        const whole = countStatement(plan);
        const n = Number(await store.value<number>(whole.sql, whole.params));
        return Math.min(limit, Math.max(0, n - skip));
      }
      let total = 0;
      let last: number | string | undefined;
      while (total < skip + limit) {
        const want = Math.min(COUNT_SLICE, skip + limit - total);
        const slice = countSliceStatement(plan, last, want);
        const got = (await store.get<{ n: number; last: number | string }>(slice.sql, slice.params))!;
        total += Number(got.n);
        last = got.last;
        if (got.n < want || !(await tick())) break;
      }
      return Math.min(limit, Math.max(0, total - skip));
    },
  };
}

/** `callhistory-2026-11-02.csv`. */
export function exportFileName(setName: string, format: string, now = new Date()): string {
  return `${setName}-${now.toISOString().slice(0, 10)}.${format}`;
}

/**
 * Streams the collection of `source` as `format` (csv or xlsx). Bad options, and more rows than the
 * limit, throw a 400 before any byte is written.
 */
export async function streamExport(ctx: AppContext, req: Request, res: Response, source: ExportSource, options: QueryOptions, format: string): Promise<void> {
  if (options.skiptoken !== undefined) throw badRequest('$skiptoken does not apply to exports: an export holds every matching row');
  const max = EXPORT_LIMITS[format]!;
  try {
    const prepared = source.rows ? fromRows(source as ExportSource & { rows: Row[] }, options) : fromQuery(ctx.store, source, options);
    const tick = scheduler(res);
    const total = await prepared.count(max, tick);
    if (res.destroyed) return;
    if (total > max) {
      throw badRequest(`The export would hold more than ${max.toLocaleString('en-US')} rows (the ${format.toUpperCase()} limit); narrow it with $filter or $top`);
    }
    const setName = source.model.setName ?? 'export';
    res.status(200);
    res.setHeader('OData-Version', '4.0');
    res.setHeader('Content-Type', format === 'csv' ? 'text/csv; charset=utf-8' : EXPORT_MEDIA_TYPES[format]!);
    res.setHeader('Content-Disposition', `attachment; filename="${exportFileName(setName, format)}"`);
    res.setHeader('Cache-Control', 'no-store');
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const writer = format === 'csv' ? csvWriter(res) : xlsxWriter(res, setName);
    writer.start(prepared.columns);
    for await (const batch of prepared.batches(writer.batchRows)) {
      writer.rows(batch);
      if (!writer.flush() && !(await writer.wait())) return; // leaving the loop releases the reader
      if (!(await tick())) return;
    }
    await writer.end();
  } catch (err) {
    if (!res.headersSent) throw err;
    res.destroy(err as Error); // mid-stream: the client sees a cut-off download, never a half-valid one
  }
}
