/**
 * The OData service dispatcher: one Express router for /cati/ serving the service document, $metadata,
 * and every registered entity set (collection, entity by key, bound functions and actions).
 *
 * ## Usage
 *
 * ```ts
 * const service = createODataService(ctx);
 * service.registerType(surveyAssignmentModel);            // a type only returned by functions
 * service.registerSet({
 *   model: groupModel,                                     // EntityModel with setName 'groups'
 *   // permissions: ['cati_administrate'],                 // default for every route of the set
 *   // list / get are generic by default (SELECT over model.from); scope/postProcess customise both:
 *   scope: (call) => ({ where: 'g.deleted = 0' }),
 *   postProcess: (rows) => withParentsOf(rows),            // virtual properties, one query per page
 *   create: { handler: (call) => ok.created(groupModel, insertGroup(db, call.body)) },
 *   update: { handler: (call) => { call.checkIfMatch(call.entity()['@etag']); ...; return ok.entity(groupModel, row); } },
 *   remove: { handler: (call) => { call.checkIfMatch(call.entity()['@etag']); ...; return ok.noContent(); } },
 *   operations: [
 *     { def: { name: 'GetInterviewers', bindingType: 'Group', parameters: [{ name: 'callCenterId', type: 'Edm.Int32' }],
 *              returnType: 'Collection(Controller.Interviewer)', sideEffectFree: true },
 *       // a computed collection that still honours $filter/$orderby/$top/$skiptoken/$count/$select:
 *       handler: (call) => call.query(interviewerModel, { scope: { where: 'i.id IN (SELECT ...)', params: [call.key, call.args.callCenterId] } }) },
 *     { def: { name: 'Lock', bindingType: 'Interviewer', parameters: [], returnType: 'Edm.Boolean' },
 *       handler: (call) => { lock(db, call.key as number); return ok.value('Edm.Boolean', true); } },
 *     { def: { name: 'Import', bindingType: 'TelephoneBlacklistItem', boundToCollection: true, action: true, ... },
 *       permissions: ['cati_administrate'], handler: ... },
 *   ],
 * });
 * router.use(service.router);
 * ```
 *
 * Handlers get an `ODataCall` (typed key, typed function args, parsed JSON body, parsed query options) and
 * return an `ODataResult` built with `ok.*`; they throw `ApiError` for 4xx. Rows are objects keyed by
 * property name holding SQL values (epoch ms, 0/1) plus `@etag`; the formatter turns them into wire JSON.
 * Rules applied here: 405 + Allow for a wrong method; HEAD only on reads and side-effect-free functions;
 * 401 for Basic credentials anywhere but a side-effect-free read (docs/cati-api.md#basic); 403 unless the key holds one
 * of the route's permissions; 400 for a missing/non-object body on writes; PATCH on every set with PUT
 * (the PUT handler after the PATCH body rule); `/{set}/$count`; the response format negotiated once
 * (format-negotiation.ts: metadata levels, IEEE754Compatible, 406); links on the public URL or the
 * request's (allowed) Host (docs/cati-api.md#metadata).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJsonBody } from '../http/json-body.ts';
import { Router, type Request, type Response } from 'express';
import type { Permission } from '../auth/api-keys.ts';
import { basicRefused, hasPermission } from '../auth/middleware.ts';
import type { AppContext } from '../context.ts';
import { badRequest, forbidden, notFound, ApiError } from '../errors.ts';
import { linkOrigin } from '../http/host-rules.ts';
// metadata.ts, apply-query.ts and export-stream.ts (with the CSV and XLSX writers) are imported where they are
// used: no first request needs them, and loading them at start cost the cold start.
import type { ExportColumns, ExportSource } from './export-stream.ts';
import { checkSelect, queryCollection, queryEntity, skipInSteps, type CollectionQueryOptions, type CollectionScope, type Row } from './collection-query.ts';
import { checkIfMatch, type WireOptions } from './format.ts';
import { negotiate, notAcceptable, type JsonFormat } from './format-negotiation.ts';
import type { EntityModel, FunctionDef } from './model.ts';
import { bindArguments, parseResourcePath, typedKey } from './parse-path.ts';
import { PLAIN_OPTIONS, parseQueryOptions, type QueryOptions } from './query-options.ts';
import { ok, writeResult, type ODataResult } from './respond.ts';
import { checkPatchBody, describeSet, type Slot } from './route-resolve.ts';
import { DOCUMENT_PERMISSIONS, odataRouteTable } from './route-permissions.ts';
import type { PermissionTagged } from '../route-table.ts';
import { hotRead } from './hot-read.ts';
import { authorizeRoute, negotiateRequest } from './request-plan.ts';

export { ok, type ODataResult } from './respond.ts';

/** Everything a handler needs about one request. */
export interface ODataCall {
  req: Request;
  res: Response;
  set: EntitySetDef;
  /** The typed key from the path (number or string), undefined on collection routes. */
  key: unknown;
  /** Typed function arguments by parameter name. */
  args: Record<string, unknown>;
  /** Parsed JSON body (an object or array on writes that require one). */
  body: any;
  options: QueryOptions;
  /** `http://host:port/cati` (on the public URL when one is configured). */
  serviceRoot: string;
  /** The negotiated JSON format (metadata level, IEEE754Compatible). */
  format: JsonFormat;
  /** The export format (`csv`/`xlsx`) when this collection request is an export (docs/cati-api.md#exports), else undefined. */
  exporting: string | undefined;
  /**
   * Runs the generic collection query with this request's options (default model: the set's).
   * `exportColumns`: columns an export adds (docs/cati-api.md#exports, e.g. one per requested variable).
   */
  query(model?: EntityModel, q?: CollectionQueryOptions & { exportColumns?: ExportColumns }): Promise<ODataResult>;
  /** The current entity of the key via the generic query (with the set's scope/postProcess); 404 if absent. */
  entity(): Promise<Row>;
  /** Throws 412 unless If-Match is absent, `*`, or matches this version. */
  checkIfMatch(version: unknown): void;
}

export type Handler = (call: ODataCall) => ODataResult | Promise<ODataResult>;

export interface Route {
  /** Any of these permissions is enough; default: the set's permissions. */
  permissions?: Permission[];
  handler: Handler;
  /** Writes and actions need a JSON object/array body unless false. */
  bodyRequired?: boolean;
}

export interface OperationRoute extends Route {
  def: FunctionDef;
}

export interface EntitySetDef {
  /** The entity type and its set name (`model.setName`). Two sets of one type: `{ ...model, setName: 'other' }`. */
  model: EntityModel;
  /** Default permissions of every route of the set (default `cati_administrate`). */
  permissions?: Permission[];
  /** Limits the generic list/get (e.g. hides soft-deleted rows). */
  scope?: (call: ODataCall) => CollectionScope | undefined | Promise<CollectionScope | undefined>;
  /** Adds virtual properties to a page of rows of the generic list/get (one query per page, never per row). */
  postProcess?: (rows: Row[]) => Row[] | Promise<Row[]>;
  /** Collection GET: generic unless a handler is given; `false` disables it. */
  list?: Partial<Route> | false;
  /** GET by key: generic unless a handler is given; `false` disables it. */
  get?: Partial<Route> | false;
  /**
   * True when GET by key answers a collection (of that one entity) rather than the entity: `$metadata` then says
   * the set is not readable by key, so a generated client never reads a collection as an entity.
   */
  keyReadAnswersCollection?: boolean;
  create?: Route;
  /** PUT; also serves PATCH (after the PATCH body rule) unless `patch` is given. */
  update?: Route;
  patch?: Route;
  remove?: Route;
  operations?: OperationRoute[];
  /** False: left out of the service document (IncludeInServiceDocument="false"), e.g. a write-only set. */
  includeInServiceDocument?: boolean;
  /** Body properties a PUT/PATCH accepts beyond the type's own (e.g. a survey's BasicProperties). */
  extraWritable?: readonly string[];
}

export interface ODataService {
  router: Router;
  /**
   * The hot read, before Express (server/app.ts): answers `GET /cati/{set}?…` when the set's collection is the
   * generic one (no handler, scope or row hook), the key (Bearer, or Basic as for any read) holds the permission, and the
   * answer is JSON. Resolves false having written nothing otherwise, errors included: the Express app then
   * serves the request as always. Same answer either way; this only skips the framework's routing.
   */
  serveHotRead(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  registerSet(set: EntitySetDef): void;
  /** Declares a type in $metadata that is only returned by operations (e.g. SurveyAssignment). */
  registerType(model: EntityModel): void;
}



/** Runs `/{set}/$count`: the route's collection with only $filter applied, counted in SQL (with `$apply`, counted after it, below). */
async function countOf(call: ODataCall, slot: Slot): Promise<ODataResult> {
  call.options.count = true;
  call.options.top = 0;
  const result = slot.route.handler ? await slot.route.handler(call) : await call.query();
  if (result.kind !== 'collection') throw new Error(`$count of ${call.set.model.setName}: the route did not answer a collection`);
  return ok.count(result.page.count ?? result.page.rows.length);
}

/** Creates the dispatcher. Register sets before the first request. */
export function createODataService(ctx: AppContext): ODataService {
  const sets = new Map<string, EntitySetDef>();
  const types: EntityModel[] = [];
  const router = Router();
  let metadataCache: string | undefined;

  const serviceRootOf = (req: Request) => `${linkOrigin(req, ctx.config.publicUrl)}${req.baseUrl}`;
  const links = (setName: string) => {
    const set = sets.get(setName);
    return { id: !!set && set.get !== false, edit: !!set && !!(set.update || set.patch || set.remove) };
  };

  const serveDocument = async (req: Request, res: Response, kind: 'service' | 'metadata') => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      if (req.authScheme === 'basic') throw basicRefused();
      throw new ApiError('MethodNotAllowed', `${req.method} is not allowed here; allowed: GET, HEAD`, undefined, { Allow: 'GET, HEAD' });
    }
    if (!hasPermission(req.principal, ...DOCUMENT_PERMISSIONS)) throw forbidden();
    const options = parseQueryOptions(req.query, PLAIN_OPTIONS);
    const format = negotiate({ accept: req.get('accept'), format: options.format }, kind === 'service' ? 'json' : 'xml');
    res.setHeader('OData-Version', '4.0');
    const described = [...sets.values()].map(describeSet);
    if (format.kind === 'json') {
      const doc = (await import('./metadata.ts')).serviceDocument(serviceRootOf(req), described, format.metadata !== 'none');
      res.type(`application/json; odata.metadata=${format.metadata}`).send(JSON.stringify(doc));
      return;
    }
    metadataCache ??= (await import('./metadata.ts')).metadataXml({
      sets: described,
      types,
      functions: [...sets.values()].flatMap((s) => (s.operations ?? []).map((o) => o.def)),
    });
    res.type('application/xml').send(metadataCache);
  };

  router.use(async (req, res) => {
    const path = parseResourcePath(req.path);
    if (path.kind !== 'resource') return serveDocument(req, res, path.kind);
    const access = req.principal && req.authScheme ? { principal: req.principal, scheme: req.authScheme } : undefined;
    const { set, slot } = authorizeRoute(sets, path, req.method, access);
    if (req.method !== 'GET' && req.method !== 'HEAD') await readJsonBody(req, res); // only now: a key without the permission never makes us parse its body
    const key = path.key ? typedKey(set.model, path.key) : undefined;
    if (slot.def?.action && path.operation!.args.length > 0) {
      throw badRequest(`Action ${slot.def.name} takes its parameters in the JSON body, not in the path`);
    }
    const args = path.operation && slot.def && !slot.def.action ? bindArguments(slot.def, path.operation) : {};
    const { options, format: negotiated } = negotiateRequest(slot, req.query, req.get('accept'));
    const exporting = negotiated.kind === 'export' ? negotiated.name : undefined;
    let exportSource: ExportSource | undefined;
    const format: JsonFormat = negotiated.kind === 'json' ? negotiated : { kind: 'json', metadata: 'minimal', ieee754: false };
    const needsBody = slot.kind === 'write' || (slot.kind === 'operation' && slot.def!.action);
    if (needsBody && slot.route.bodyRequired !== false && (req.body === null || typeof req.body !== 'object')) {
      throw badRequest('This request needs a JSON object body (Content-Type: application/json)');
    }
    if (slot.mergePatch) checkPatchBody(set, req.body, key);
    const serviceRoot = serviceRootOf(req);
    let applied = false;
    let pendingApply: { model: EntityModel; scope?: CollectionScope } | undefined;
    const call: ODataCall = {
      req,
      res,
      set,
      key,
      args,
      body: req.body,
      options,
      serviceRoot,
      format,
      exporting,
      query: async (model = set.model, q = {}) => {
        const own = model === set.model;
        const scope = q.scope ?? (own ? await set.scope?.(call) : undefined);
        if (exporting) {
          // Exports (docs/cati-api.md#exports): the query is streamed after the handler returns, not run here.
          exportSource = { model, scope, columns: q.exportColumns };
          applied = true;
          return ok.collection(model, []);
        }
        if (options.apply) {
          // $apply (docs/cati-api.md#apply): run on the read worker after the handler returns (below).
          applied = true;
          pendingApply = { model, scope };
          return ok.collection(model, []);
        }
        const page = await queryCollection(ctx.store, model, options, { stream: true, ...q, scope, postProcess: q.postProcess ?? (own ? set.postProcess : undefined) });
        return ok.collection(model, page);
      },
      entity: async () => {
        const row = await queryEntity(ctx.store, set.model, key, { scope: await set.scope?.(call), postProcess: set.postProcess });
        if (!row) throw notFound(`No ${set.model.typeName} with ${set.model.key[0]} ${JSON.stringify(key)}`);
        return row;
      },
      checkIfMatch: (version) => checkIfMatch(req.get('if-match'), version),
    };
    let result: ODataResult;
    if (slot.kind === 'count') result = await countOf(call, slot);
    else if (slot.route.handler) result = await slot.route.handler(call);
    else if (slot.kind === 'list') {
      if (!exporting && !options.apply) await skipInSteps(ctx.store, set.model, options, { scope: await set.scope?.(call) });
      result = await call.query();
    }
    else result = ok.entity(set.model, await call.entity());
    if (options.apply && !applied) throw badRequest('$apply is not supported on this resource');
    if (pendingApply) {
      // The result rows have their own shape, named by its columns ($select included).
      const aggregated = await (await import('./apply-query.ts')).queryApply(ctx.store, pendingApply.model, options, pendingApply.scope);
      options.select = undefined;
      // `/{set}/$count?$apply=…` (docs/cati-api.md#apply): the number of rows of the aggregated result, after $filter.
      result = slot.kind === 'count' ? ok.count(Number(aggregated.page.count ?? 0)) : ok.collection(aggregated.model, aggregated.page);
    }
    if (exporting) {
      if (result.kind !== 'collection' || !result.model) throw notAcceptable(`$format=${exporting} is served on collections only`);
      return (await import('./export-stream.ts')).streamExport(ctx, req, res, exportSource ?? { model: result.model, rows: result.page.rows }, options, exporting);
    }
    if (result.kind === 'entity') checkSelect(result.model, options.select);
    const wire: WireOptions = { format, serviceRoot, links };
    await writeResult(req, res, result, wire, options.select);
  });

  const serveHotRead = hotRead(ctx, sets, links);

  (router as PermissionTagged).routeTable = () => odataRouteTable([...sets.values()]);
  return {
    router,
    serveHotRead,
    registerSet(set) {
      const name = set.model.setName;
      if (!name) throw new Error(`Entity type ${set.model.typeName} has no setName`);
      if (sets.has(name)) throw new Error(`Entity set ${name} registered twice`);
      sets.set(name, set);
      metadataCache = undefined;
    },
    registerType(model) {
      types.push(model);
      metadataCache = undefined;
    },
  };
}
