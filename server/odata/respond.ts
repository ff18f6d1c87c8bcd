/**
 * What an OData handler returns (`ODataResult`, built with `ok.*`) and how the dispatcher writes it.
 */
import type { Request, Response } from 'express';
import type { CollectionPage, Row } from './collection-query.ts';
import { collectionFragment, contextUrl, entityFragment, entityPath, formatEntity, weakEtag, type WireOptions } from './format.ts';
import { jsonContentType } from './format-negotiation.ts';
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
export function nextLink(req: Request, serviceRoot: string, token: string): string {
  const url = new URL(req.originalUrl, serviceRoot);
  for (const name of [...url.searchParams.keys()]) {
    const lower = name.toLowerCase();
    if (lower === '$skip' || lower === '$skiptoken') url.searchParams.delete(name);
  }
  url.searchParams.set('$skiptoken', token);
  return `${serviceRoot}${url.pathname.replace(/^\/cati/, '')}${url.search}`;
}

/** Writes a handler result as OData JSON in the negotiated format (metadata level, IEEE754Compatible). */
export function writeResult(req: Request, res: Response, result: ODataResult, wire: WireOptions, select?: string[]): void {
  const { format, serviceRoot } = wire;
  const none = format.metadata === 'none';
  res.setHeader('OData-Version', '4.0');
  const json = (status: number, body: unknown) => {
    // A Buffer, so Express keeps the parameters as written (it would lower-case IEEE754Compatible).
    res.status(status).setHeader('Content-Type', `${jsonContentType(format)}; charset=utf-8`);
    res.send(Buffer.from(JSON.stringify(body)));
  };
  const context = (fragment: string) => (none ? {} : { '@odata.context': contextUrl(serviceRoot, fragment) });
  switch (result.kind) {
    case 'collection': {
      const { model, page } = result;
      const body: Record<string, unknown> = context(collectionFragment(model, select));
      if (page.count !== undefined) body['@odata.count'] = format.ieee754 ? String(page.count) : page.count;
      body.value = model ? page.rows.map((r) => formatEntity(model, r, select, wire)) : page.rows;
      if (page.nextSkiptoken) body['@odata.nextLink'] = nextLink(req, serviceRoot, page.nextSkiptoken);
      return json(200, body);
    }
    case 'entity': {
      const { model, row } = result;
      const version = row['@etag'];
      if (model.etagColumn && version !== undefined && version !== null) res.setHeader('ETag', weakEtag(version));
      const path = entityPath(model, row);
      if (result.created && path) res.setHeader('Location', `${serviceRoot}/${path}`);
      return json(result.created ? 201 : 200, { ...context(entityFragment(model, select)), ...formatEntity(model, row, select, wire) });
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
