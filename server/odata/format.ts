/**
 * OData JSON (v4, minimal metadata) formatting: @odata.context, @odata.count, @odata.nextLink,
 * @odata.etag, ISO 8601 UTC times with milliseconds, booleans, enums as strings; plus the If-Match check.
 */
import { preconditionFailed } from '../errors.ts';
import type { Row } from './collection-query.ts';
import type { EntityModel, PropertyDef } from './model.ts';
import { NAMESPACE } from './model.ts';

/** Epoch ms (or an ISO string) → `2026-11-02T09:15:00.000Z`; null stays null. */
export function formatDateTime(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  const d = new Date(Number(value));
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** One property value in its wire form. */
export function formatValue(prop: PropertyDef, value: unknown): unknown {
  if (value === undefined) return null;
  if (value === null || prop.virtual || prop.collection) return value;
  switch (prop.type) {
    case 'Edm.Boolean':
      return typeof value === 'boolean' ? value : Number(value) !== 0;
    case 'Edm.DateTimeOffset':
      return formatDateTime(value);
    default:
      return value;
  }
}

/** Weak ETag of a row version: `W/"3"`. */
export function weakEtag(version: unknown): string {
  return `W/"${String(version)}"`;
}

/**
 * The entity in its wire form: properties in model order (limited by `$select`), `@odata.etag` when the
 * model has a version column.
 */
export function formatEntity(model: EntityModel, row: Row, select?: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (model.etagColumn && row['@etag'] !== undefined && row['@etag'] !== null) out['@odata.etag'] = weakEtag(row['@etag']);
  for (const p of model.properties) {
    if (select && !select.includes(p.name)) continue;
    if (p.virtual && !(p.name in row)) continue;
    out[p.name] = formatValue(p, row[p.name]);
  }
  return out;
}

/** `<serviceRoot>/$metadata#<fragment>`. */
export function contextUrl(serviceRoot: string, fragment: string): string {
  return `${serviceRoot}/$metadata#${fragment}`;
}

/** The context fragment of a collection of this type: the entity set, or `Collection(Controller.Type)`. */
export function collectionFragment(model: EntityModel | null, select?: string[]): string {
  if (!model) return 'Collection(Edm.Untyped)';
  const base = model.setName ?? `Collection(${NAMESPACE}.${model.typeName})`;
  return select ? `${base}(${select.join(',')})` : base;
}

/** The context fragment of a single entity. */
export function entityFragment(model: EntityModel, select?: string[]): string {
  if (!model.setName) return `${NAMESPACE}.${model.typeName}`;
  return select ? `${model.setName}(${select.join(',')})/$entity` : `${model.setName}/$entity`;
}

/**
 * If-Match semantics (CONTRACT §3): absent, `*`, or a list containing the current ETag passes;
 * anything else → 412 PreconditionFailed. Weak and strong forms of the same tag both match.
 */
export function checkIfMatch(header: string | undefined, version: unknown): void {
  if (header === undefined || header.trim() === '') return;
  const current = String(version);
  const tags = header.split(',').map((t) => t.trim());
  const ok = tags.some((t) => t === '*' || t.replace(/^W\//, '') === `"${current}"`);
  if (!ok) throw preconditionFailed(`The If-Match header ${header} does not match the current ETag ${weakEtag(current)}`);
}
