/**
 * What an OData handler returns (`ODataResult`, built with `ok.*`) and how the dispatcher writes it.
 */
import type { Request, Response } from 'express';
import type { ServerResponse } from 'node:http';
import { rowObjects, STREAM_CHUNK, type CollectionPage, type Row } from './collection-query.ts';
import { collectionFragment, contextUrl, entityFragment, entityPath, formatEntity, weakEtag, type WireOptions } from './format.ts';
import { jsonContentType } from './format-negotiation.ts';
import { entityWriter, tableWriter } from './wire-json.ts';
import type { EntityModel } from './model.ts';

export type ODataResult =
  | { kind: 'collection'; model: EntityModel | null; page: CollectionPage }
  | { kind: 'entity'; model: EntityModel; row: Row; created?: boolean }
  | { kind: 'value'; type: string; value: unknown }
  | { kind: 'json'; body: unknown; status: number; headers?: Record<string, string> }
  | { kind: 'count'; count: number }
  | { kind: 'empty' };

/** Constructors of handler results. */
export const ok = {
  /** A collection: rows keyed by property name (SQL values), or a page from `call.query(...)`. */
  collection(model: EntityModel | null, rows: Row[] | CollectionPage): ODataResult {
    return { kind: 'collection', model, page: Array.isArray(rows) ? { rows } : rows };
  },
  /** One entity (200, ETag header when the model has a version column). */
  entity(model: EntityModel, row: Row): ODataResult {
    return { kind: 'entity', model, row };
  },
  /** A created entity: 201 with Location. */
  created(model: EntityModel, row: Row): ODataResult {
    return { kind: 'entity', model, row, created: true };
  },
  /** A primitive function result, e.g. `ok.value('Edm.Boolean', true)`. */
  value(type: string, value: unknown): ODataResult {
    return { kind: 'value', type, value };
  },
  /** A body written as is (e.g. Import's counts, ingest's `{value: [ids]}` with 201). */
  json(body: unknown, status = 200, headers?: Record<string, string>): ODataResult {
    return { kind: 'json', body, status, headers };
  },
  /** The answer of `/{set}/$count`: the number as text/plain. */
  count(count: number): ODataResult {
    return { kind: 'count', count };
  },
  /** 204 No Content (DELETE). */
  noContent(): ODataResult {
    return { kind: 'empty' };
  },
};

/** The request URL with `$skiptoken` replaced (and `$skip` dropped: the token already positions the page). */
export function nextLink(requestUrl: string, serviceRoot: string, token: string): string {
  const url = new URL(requestUrl, serviceRoot);
  for (const name of [...url.searchParams.keys()]) {
    const lower = name.toLowerCase();
    if (lower === '$skip' || lower === '$skiptoken') url.searchParams.delete(name);
  }
  url.searchParams.set('$skiptoken', token);
  return `${serviceRoot}${url.pathname.replace(/^\/cati/, '')}${url.search}`;
}

/** Rows written per chunk of a large collection; the event loop turns between chunks. */
const CHUNK_ROWS = STREAM_CHUNK;

/**
 * Writes a large collection in chunks (chunked transfer), yielding between them: the rows at hand, then
 * what `more` reads chunk by chunk (a streamed `$top`).
 */
async function streamCollection<T>(res: ServerResponse, head: string, first: T[], write: (r: T) => string, more: (() => Promise<T[]>) | undefined, tail: string): Promise<void> {
  res.write(`${head}[`);
  let sep = '';
  const send = (rows: T[]) => {
    if (rows.length === 0) return;
    res.write(sep + rows.map(write).join(','));
    sep = ',';
  };
  for (let i = 0; i < first.length && !res.destroyed; i += CHUNK_ROWS) {
    if (i > 0) await new Promise((ok) => setImmediate(ok));
    send(first.slice(i, i + CHUNK_ROWS));
  }
  for (let rows = (await more?.()) ?? []; rows.length > 0 && !res.destroyed; rows = await more!()) {
    send(rows);
    await new Promise((ok) => setImmediate(ok));
  }
  res.end(`]${tail}}`);
}

/**
 * Writes a collection as OData JSON: one string and one `res.end` (head and body in one write), or chunked
 * when it is large. Plain Node objects only: the hot read (hot-read.ts) calls it before Express.
 * `requestUrl`: the request's path and query under the server root (for the next link).
 */
export function writeCollection(res: ServerResponse, head: boolean, requestUrl: string, model: EntityModel | null, page: CollectionPage, wire: WireOptions, select?: string[]): void | Promise<void> {
  const { format, serviceRoot } = wire;
  res.setHeader('OData-Version', '4.0');
  res.setHeader('Content-Type', `${jsonContentType(format)}; charset=utf-8`);
  res.statusCode = 200;
  let start = '{';
  if (format.metadata !== 'none') start += `"@odata.context":${JSON.stringify(contextUrl(serviceRoot, collectionFragment(model, select)))},`;
  if (page.count !== undefined) start += `"@odata.count":${format.ieee754 ? JSON.stringify(String(page.count)) : page.count},`;
  start += '"value":';
  const tail = page.nextSkiptoken ? `,"@odata.nextLink":${JSON.stringify(nextLink(requestUrl, serviceRoot, page.nextSkiptoken))}` : '';
  const send = <T>(first: T[], write: (r: T) => string, more?: () => Promise<T[]>) => {
    if (first.length > CHUNK_ROWS || more) return streamCollection(res, start, first, write, more, tail);
    let text = `${start}[`;
    for (let i = 0; i < first.length; i++) text += (i ? ',' : '') + write(first[i]!);
    const body = `${text}]${tail}}`;
    res.setHeader('Content-Length', Buffer.byteLength(body)); // flattens the string once; Node writes the head and it together
    res.end(head ? undefined : body);
  };
  // Rows read positionally are written straight from their arrays (full metadata: as objects).
  const { table, more } = page;
  const fromTable = model && table ? tableWriter(model, select, format, table.columns) : undefined;
  if (fromTable) return send(table!.values, fromTable, more);
  const write = model ? (entityWriter(model, select, format) ?? ((r: Row) => JSON.stringify(formatEntity(model, r, select, wire)))) : (r: Row) => JSON.stringify(r);
  return send(page.rows, write, more && (async () => rowObjects(table!.columns, await more())));
}

/** Writes a handler result as OData JSON in the negotiated format (metadata level, IEEE754Compatible). */
export function writeResult(req: Request, res: Response, result: ODataResult, wire: WireOptions, select?: string[]): void | Promise<void> {
  const { format, serviceRoot } = wire;
  const none = format.metadata === 'none';
  res.setHeader('OData-Version', '4.0');
  const type = () => res.setHeader('Content-Type', `${jsonContentType(format)}; charset=utf-8`);
  // Written directly (Express would lower-case IEEE754Compatible in a string's type): one string with one
  // `res.end`, so Node sends the head and the body in one write. With an ETag set (entities), Express's send
  // still answers a matching If-None-Match with 304.
  const text = (status: number, body: string): void => {
    type();
    if (res.hasHeader('ETag')) return void res.status(status).send(Buffer.from(body));
    res.statusCode = status;
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  const json = (status: number, body: unknown) => text(status, JSON.stringify(body));
  const context = (fragment: string) => (none ? {} : { '@odata.context': contextUrl(serviceRoot, fragment) });
  const contextText = (fragment: string) => (none ? '' : `"@odata.context":${JSON.stringify(contextUrl(serviceRoot, fragment))},`);
  switch (result.kind) {
    case 'collection':
      return writeCollection(res, req.method === 'HEAD', req.originalUrl, result.model, result.page, wire, select);
    case 'entity': {
      const { model, row } = result;
      const version = row['@etag'];
      if (model.etagColumn && version !== undefined && version !== null) res.setHeader('ETag', weakEtag(version));
      const path = entityPath(model, row);
      if (result.created && path) res.setHeader('Location', `${serviceRoot}/${path}`);
      const status = result.created ? 201 : 200;
      const writer = entityWriter(model, select, format);
      if (!writer) return json(status, { ...context(entityFragment(model, select)), ...formatEntity(model, row, select, wire) });
      const entity = writer(row);
      const ctx = contextText(entityFragment(model, select));
      return void text(status, entity === '{}' ? (ctx ? `{${ctx.slice(0, -1)}}` : '{}') : `{${ctx}${entity.slice(1)}`);
    }
    case 'value':
      return json(200, { ...context(result.type), value: result.value });
    case 'json': {
      for (const [k, v] of Object.entries(result.headers ?? {})) res.setHeader(k, v);
      const body = result.body as Record<string, unknown>;
      if (none && body && typeof body === 'object' && '@odata.context' in body) {
        const { '@odata.context': _context, ...rest } = body;
        return json(result.status, rest);
      }
      return json(result.status, body);
    }
    case 'count':
      res.status(200).type('text/plain').send(String(result.count));
      return;
    case 'empty':
      res.status(204).end();
  }
}
