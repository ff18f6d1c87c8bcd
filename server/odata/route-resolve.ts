/**
 * Which route of an entity set a request reaches (404 for unknown operations, 405 with Allow for a wrong
 * method), which query options it takes, whether it is a side-effect-free read (Basic credentials,
 * docs/cati-api.md#basic), what the set serves as a whole ($metadata capabilities, docs/cati-api.md#metadata), and the PATCH
 * body rule (unknown or read-only properties → 400 naming them).
 */
import { ApiError, badRequest, methodNotAllowed, notFound } from '../errors.ts';
import type { SetDescription } from './metadata-annotations.ts';
import type { FunctionDef } from './model.ts';
import { NAMESPACE } from './model.ts';
import type { ResourcePath } from './parse-path.ts';
import { COLLECTION_OPTIONS, COUNT_OPTIONS, ENTITY_OPTIONS, PLAIN_OPTIONS } from './query-options.ts';
import type { EntitySetDef, Route } from './service.ts';

export type SlotKind = 'list' | 'get' | 'write' | 'operation' | 'count';

/** The route a request reaches. */
export interface Slot {
  route: Partial<Route>;
  kind: SlotKind;
  def?: FunctionDef;
  /** PATCH served by the set's PUT handler after the PATCH body rule (merge semantics, docs/cati-api.md#generic-clients). */
  mergePatch?: boolean;
}

type ResourceOf = Extract<ResourcePath, { kind: 'resource' }>;

function operationSlot(set: EntitySetDef, path: ResourceOf, methods: Map<string, Slot>): void {
  const want = path.operation!.name;
  const bound = (set.operations ?? []).filter((o) => `${NAMESPACE}.${o.def.name}` === want);
  const op = bound.find((o) => !!o.def.boundToCollection === (path.key === undefined));
  if (!op) {
    const where = path.key === undefined ? `the collection ${set.model.setName}` : `an entity of ${set.model.setName}`;
    throw notFound(`No operation '${want}' bound to ${where}`);
  }
  if (path.count) {
    if (op.def.action || !op.def.sideEffectFree || !op.def.returnType.startsWith('Collection(')) {
      throw badRequest(`$count applies to collections; ${op.def.name} does not return one`);
    }
    const slot: Slot = { route: op, kind: 'count', def: op.def };
    methods.set('GET', slot).set('HEAD', slot);
    return;
  }
  const slot: Slot = { route: op, kind: 'operation', def: op.def };
  if (op.def.action) methods.set('POST', slot);
  else {
    methods.set('GET', slot);
    if (op.def.sideEffectFree) methods.set('HEAD', slot);
  }
}

/** Finds the route for a path + method; 404 for unknown resources, 405 (with Allow) for a wrong method. */
export function resolveSlot(set: EntitySetDef, path: ResourceOf, method: string): Slot {
  const methods = new Map<string, Slot>();
  if (path.operation) operationSlot(set, path, methods);
  else if (path.count) {
    if (path.key !== undefined) throw badRequest('$count applies to collections, not to one entity');
    if (set.list === false) throw notFound(`The entity set ${set.model.setName} cannot be read, so it has no $count`);
    const slot: Slot = { route: set.list ?? {}, kind: 'count' };
    methods.set('GET', slot).set('HEAD', slot);
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
    else if (set.update) methods.set('PATCH', { route: set.update, kind: 'write', mergePatch: true });
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

/** The system query options a route accepts. */
export function allowedOptions(slot: Slot): ReadonlySet<string> {
  if (slot.kind === 'list') return COLLECTION_OPTIONS;
  if (slot.kind === 'count') return COUNT_OPTIONS;
  if (slot.kind === 'operation') return slot.def!.returnType.startsWith('Collection(') ? COLLECTION_OPTIONS : PLAIN_OPTIONS;
  return ENTITY_OPTIONS;
}

/** A read without side effects (collection, entity, $count, side-effect-free function): Basic may reach it. */
export function isSideEffectFreeRead(slot: Slot, method: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  if (slot.kind === 'operation' || (slot.kind === 'count' && slot.def)) return !!slot.def!.sideEffectFree && !slot.def!.action;
  return slot.kind === 'list' || slot.kind === 'get' || slot.kind === 'count';
}

/** What the set serves, from the routes it declares (the input of its $metadata annotations). */
export function describeSet(set: EntitySetDef): SetDescription {
  return {
    model: set.model,
    readable: set.list !== false,
    readableByKey: set.get !== false && !set.keyReadAnswersCollection,
    insertable: !!set.create,
    updatable: !!(set.update || set.patch),
    deletable: !!set.remove,
    includeInServiceDocument: set.includeInServiceDocument !== false,
  };
}

/**
 * The PATCH body rule: a JSON object whose properties the set's type declares as writable. Unknown
 * properties and read-only ones (computed, or a key that differs from the URL's) → one 400 naming them.
 * Instance and property annotations (`@odata.etag`, `Name@odata.type`) are ignored.
 */
export function checkPatchBody(set: EntitySetDef, body: unknown, key: unknown): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('PATCH needs a JSON object body with the properties to change');
  }
  const props = new Map(set.model.properties.map((p) => [p.name, p]));
  const unknown: string[] = [];
  const readOnly: string[] = [];
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (name.includes('@')) continue;
    const prop = props.get(name);
    if (set.model.key.includes(name)) {
      if (value !== key) readOnly.push(name);
    } else if (prop) {
      if (prop.computed) readOnly.push(name);
    } else if (!set.extraWritable?.includes(name)) unknown.push(name);
  }
  const problems: string[] = [];
  if (unknown.length) {
    const hints = unknown.map((n) => {
      const folded = [...props.keys(), ...(set.extraWritable ?? [])].find((k) => k.toLowerCase() === n.toLowerCase());
      return `'${n}'${folded ? ` (did you mean '${folded}'?)` : ''}`;
    });
    problems.push(`unknown ${unknown.length === 1 ? 'property' : 'properties'} ${hints.join(', ')}`);
  }
  if (readOnly.length) {
    problems.push(`read-only ${readOnly.length === 1 ? 'property' : 'properties'} ${readOnly.map((n) => `'${n}'`).join(', ')} cannot be changed`);
  }
  if (problems.length) throw badRequest(`The PATCH body of ${set.model.typeName} has ${problems.join('; ')}`);
}
