/**
 * What an OData handler returns (`ODataResult`, built with `ok.*`) and how the dispatcher writes it.
 */
import type { Request, Response } from 'express';
import type { CollectionPage, Row } from './collection-query.ts';
import { collectionFragment, contextUrl, entityFragment, formatEntity, weakEtag } from './format.ts';
import type { EntityModel } from './model.ts';

export type ODataResult =
  | { kind: 'collection'; model: EntityModel | null; page: CollectionPage }
  | { kind: 'entity'; model: EntityModel; row: Row; created?: boolean }
  | { kind: 'value'; type: string; value: unknown }
  | { kind: 'json'; body: unknown; status: number; headers?: Record<string, string> }
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
  /** 204 No Content (DELETE). */
  noContent(): ODataResult {
    return { kind: 'empty' };
  },
};

/** The literal of a key in a URL: `5` or `'p123'` (quotes doubled). */
export function keyLiteral(value: unknown): string {
  return typeof value === 'string' ? `'${encodeURIComponent(value.replace(/'/g, "''"))}'` : String(value);
}

/** The request URL with `$skiptoken` replaced (and `$skip` dropped: the token already positions the page). */
export function nextLink(req: Request, serviceRoot: string, token: string): string {
  const url = new URL(req.originalUrl, serviceRoot);
  for (const name of [...url.searchParams.keys()]) {
    const lower = name.toLowerCase();
    if (lower === '$skip' || lower === '$skiptoken') url.searchParams.delete(name);
  }
  url.searchParams.set('$skiptoken', token);
  return `${serviceRoot}${url.pathname.replace(/^\/cati/, '')}${url.search}`;
}

/** Writes a handler result as OData JSON (minimal metadata). */
export function writeResult(req: Request, res: Response, result: ODataResult, serviceRoot: string, select?: string[]): void {
  res.setHeader('OData-Version', '4.0');
  const json = (status: number, body: unknown) => {
    res.status(status).type('application/json; odata.metadata=minimal').send(JSON.stringify(body));
  };
  switch (result.kind) {
    case 'collection': {
      const { model, page } = result;
      const body: Record<string, unknown> = { '@odata.context': contextUrl(serviceRoot, collectionFragment(model, select)) };
      if (page.count !== undefined) body['@odata.count'] = page.count;
      body.value = model ? page.rows.map((r) => formatEntity(model, r, select)) : page.rows;
      if (page.nextSkiptoken) body['@odata.nextLink'] = nextLink(req, serviceRoot, page.nextSkiptoken);
      return json(200, body);
    }
    case 'entity': {
      const { model, row } = result;
      const version = row['@etag'];
      if (model.etagColumn && version !== undefined && version !== null) res.setHeader('ETag', weakEtag(version));
      if (result.created && model.setName && model.key.length === 1) {
        res.setHeader('Location', `${serviceRoot}/${model.setName}(${keyLiteral(row[model.key[0]!])})`);
      }
      return json(result.created ? 201 : 200, {
        '@odata.context': contextUrl(serviceRoot, entityFragment(model, select)),
        ...formatEntity(model, row, select),
      });
    }
    case 'value':
      return json(200, { '@odata.context': contextUrl(serviceRoot, result.type), value: result.value });
    case 'json':
      for (const [k, v] of Object.entries(result.headers ?? {})) res.setHeader(k, v);
      return json(result.status, result.body);
    case 'empty':
      res.status(204).end();
  }
}
