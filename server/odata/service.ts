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
 *   postProcess: (row) => ({ ...row, ParentGroups: parentsOf(row.GroupId) }),   // virtual properties
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
 * 403 unless the key holds one of the route's permissions; 400 for a missing/non-object body on writes.
 */
import { Router, type Request, type Response } from 'express';
import type { Permission } from '../auth/api-keys.ts';
import { hasPermission } from '../auth/middleware.ts';
import type { AppContext } from '../context.ts';
import { badRequest, forbidden, methodNotAllowed, notFound, ApiError } from '../errors.ts';
import { checkSelect, queryCollection, queryEntity, type CollectionQueryOptions, type CollectionScope, type Row } from './collection-query.ts';
import { checkIfMatch } from './format.ts';
import { metadataXml, serviceDocument } from './metadata.ts';
import type { EntityModel, FunctionDef } from './model.ts';
import { NAMESPACE } from './model.ts';
import { bindArguments, parseResourcePath, typedKey, type ResourcePath } from './parse-path.ts';
import { COLLECTION_OPTIONS, ENTITY_OPTIONS, PLAIN_OPTIONS, parseQueryOptions, type QueryOptions } from './query-options.ts';
import { ok, writeResult, type ODataResult } from './respond.ts';

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
  /** `http://host:port/cati`. */
  serviceRoot: string;
  /** Runs the generic collection query with this request's options (default model: the set's). */
  query(model?: EntityModel, q?: CollectionQueryOptions): ODataResult;
  /** The current entity of the key via the generic query (with the set's scope/postProcess); 404 if absent. */
  entity(): Row;
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
  scope?: (call: ODataCall) => CollectionScope | undefined;
  /** Adds virtual properties to rows of the generic list/get. */
  postProcess?: (row: Row) => Row;
  /** Collection GET: generic unless a handler is given; `false` disables it. */
  list?: Partial<Route> | false;
  /** GET by key: generic unless a handler is given; `false` disables it. */
  get?: Partial<Route> | false;
  create?: Route;
  update?: Route;
  patch?: Route;
  remove?: Route;
  operations?: OperationRoute[];
}

export interface ODataService {
  router: Router;
  registerSet(set: EntitySetDef): void;
  /** Declares a type in $metadata that is only returned by operations (e.g. SurveyAssignment). */
  registerType(model: EntityModel): void;
}

type Slot = { route: Partial<Route>; kind: 'list' | 'get' | 'write' | 'operation'; def?: FunctionDef };

const DEFAULT_PERMISSIONS: Permission[] = ['cati_administrate'];

/** Finds the route for a path + method; 404 for unknown resources, 405 (with Allow) for a wrong method. */
function resolve(set: EntitySetDef, path: Extract<ResourcePath, { kind: 'resource' }>, method: string): Slot {
  const methods = new Map<string, Slot>();
  if (path.operation) {
    const want = path.operation.name;
    const bound = (set.operations ?? []).filter((o) => `${NAMESPACE}.${o.def.name}` === want);
    const op = bound.find((o) => !!o.def.boundToCollection === (path.key === undefined));
    if (!op) {
      const where = path.key === undefined ? `the collection ${set.model.setName}` : `an entity of ${set.model.setName}`;
      throw notFound(`No operation '${want}' bound to ${where}`);
    }
    const slot: Slot = { route: op, kind: 'operation', def: op.def };
    if (op.def.action) methods.set('POST', slot);
    else {
      methods.set('GET', slot);
      if (op.def.sideEffectFree) methods.set('HEAD', slot);
    }
  } else if (path.key === undefined) {
    if (set.list !== false) {
      methods.set('GET', { route: set.list ?? {}, kind: 'list' });
      methods.set('HEAD', { route: set.list ?? {}, kind: 'list' });
    }
    if (set.create) methods.set('POST', { route: set.create, kind: 'write' });
  } else {
    if (set.get !== false) {
      methods.set('GET', { route: set.get ?? {}, kind: 'get' });
      methods.set('HEAD', { route: set.get ?? {}, kind: 'get' });
    }
    if (set.update) methods.set('PUT', { route: set.update, kind: 'write' });
    if (set.patch) methods.set('PATCH', { route: set.patch, kind: 'write' });
    if (set.remove) methods.set('DELETE', { route: { bodyRequired: false, ...set.remove }, kind: 'write' });
  }
  const slot = methods.get(method);
  if (!slot) {
    const allow = [...methods.keys()].join(', ');
    const err = methodNotAllowed(`${method} is not allowed on this resource${allow ? `; allowed: ${allow}` : ''}`);
    throw new ApiError(err.code, err.message, undefined, { Allow: allow });
  }
  return slot;
}

function allowedOptions(slot: Slot): ReadonlySet<string> {
  if (slot.kind === 'list') return COLLECTION_OPTIONS;
  if (slot.kind === 'operation') return slot.def!.returnType.startsWith('Collection(') ? COLLECTION_OPTIONS : PLAIN_OPTIONS;
  return ENTITY_OPTIONS;
}

/** Creates the dispatcher. Register sets before the first request. */
export function createODataService(ctx: AppContext): ODataService {
  const sets = new Map<string, EntitySetDef>();
  const types: EntityModel[] = [];
  const router = Router();
  let metadataCache: string | undefined;

  const serviceRootOf = (req: Request) => `${req.protocol}://${req.get('host')}${req.baseUrl}`;

  router.use(async (req, res) => {
    const serviceRoot = serviceRootOf(req);
    const path = parseResourcePath(req.path);
    if (path.kind !== 'resource') {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        throw new ApiError('MethodNotAllowed', `${req.method} is not allowed here; allowed: GET, HEAD`, undefined, { Allow: 'GET, HEAD' });
      }
      if (!hasPermission(req.principal, 'cati_administrate', 'cati_integrate')) throw forbidden();
      parseQueryOptions(req.query, PLAIN_OPTIONS);
      res.setHeader('OData-Version', '4.0');
      if (path.kind === 'service') {
        res.type('application/json; odata.metadata=minimal').send(JSON.stringify(serviceDocument(serviceRoot, [...sets.values()].map((s) => s.model))));
      } else {
        metadataCache ??= metadataXml({
          sets: [...sets.values()].map((s) => s.model),
          types,
          functions: [...sets.values()].flatMap((s) => (s.operations ?? []).map((o) => o.def)),
        });
        res.type('application/xml').send(metadataCache);
      }
      return;
    }
    const set = sets.get(path.set);
    if (!set) throw notFound(`No entity set '${path.set}' in this service`);
    const slot = resolve(set, path, req.method);
    const permissions = slot.route.permissions ?? set.permissions ?? DEFAULT_PERMISSIONS;
    if (!hasPermission(req.principal, ...permissions)) throw forbidden(`This operation needs the permission ${permissions.join(' or ')}`);
    const key = path.key ? typedKey(set.model, path.key) : undefined;
    if (slot.def?.action && path.operation!.args.length > 0) {
      throw badRequest(`Action ${slot.def.name} takes its parameters in the JSON body, not in the path`);
    }
    const args = path.operation && slot.def && !slot.def.action ? bindArguments(slot.def, path.operation) : {};
    const options = parseQueryOptions(req.query, allowedOptions(slot));
    const needsBody = slot.kind === 'write' || (slot.kind === 'operation' && slot.def!.action);
    if (needsBody && slot.route.bodyRequired !== false && (req.body === null || typeof req.body !== 'object')) {
      throw badRequest('This request needs a JSON object body (Content-Type: application/json)');
    }
    const call: ODataCall = {
      req,
      res,
      set,
      key,
      args,
      body: req.body,
      options,
      serviceRoot,
      query: (model = set.model, q = {}) => {
        const own = model === set.model;
        const scope = q.scope ?? (own ? set.scope?.(call) : undefined);
        const page = queryCollection(ctx.db, model, options, { ...q, scope, postProcess: q.postProcess ?? (own ? set.postProcess : undefined) });
        return ok.collection(model, page);
      },
      entity: () => {
        const row = queryEntity(ctx.db, set.model, key, { scope: set.scope?.(call), postProcess: set.postProcess });
        if (!row) throw notFound(`No ${set.model.typeName} with ${set.model.key[0]} ${JSON.stringify(key)}`);
        return row;
      },
      checkIfMatch: (version) => checkIfMatch(req.get('if-match'), version),
    };
    let result: ODataResult;
    if (slot.route.handler) result = await slot.route.handler(call);
    else if (slot.kind === 'list') result = call.query();
    else result = ok.entity(set.model, call.entity());
    if (result.kind === 'entity') checkSelect(result.model, options.select);
    writeResult(req, res, result, serviceRoot, options.select);
  });

  return {
    router,
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
