/**
 * The one source of truth per OData entity: property name, column, EDM type, filterable, sortable, key.
 * The query-option compiler, the JSON formatter, the resource-path parser and $metadata all read it.
 */

export type EdmType =
  | 'Edm.Int32'
  | 'Edm.Int64'
  | 'Edm.String'
  | 'Edm.Boolean'
  | 'Edm.DateTimeOffset' // stored as INTEGER epoch milliseconds, written as ISO 8601 UTC with ms
  | 'Edm.Decimal'
  | 'Edm.Date' // `YYYY-MM-DD` text, e.g. $apply's compute(date(Time) as Day)
  | 'Edm.TimeOfDay' // `HH:MM:SS.sss` text
  | 'Edm.Double';

export interface PropertyDef {
  /** Wire name, PascalCase, exact (filters with another case get a 400 suggesting this one). */
  name: string;
  /** SQL expression selecting the value (a column, `alias.column`, or an expression); absent for virtual properties. */
  column?: string;
  type: EdmType;
  /** Names of an enumeration stored as TEXT (e.g. Equal/StartWith); CSDL declares an EnumType named `enumName`. */
  enumName?: string;
  enumValues?: readonly string[];
  nullable?: boolean;
  /** A collection (e.g. ParentGroups Collection(Edm.Int32)); never filterable or sortable. */
  collection?: boolean;
  /** Name of a complex type in namespace Controller (registered with the service) instead of `type` in $metadata. */
  complexType?: string;
  /** Complex/collection values computed by the service, not selected from SQL (e.g. Variables). */
  virtual?: boolean;
  /** Default true for scalar, non-virtual properties. */
  filterable?: boolean;
  sortable?: boolean;
  /** Set by the server, never by a client (Org.OData.Core.V1.Computed): a PATCH body naming it → 400. */
  computed?: boolean;
  /** Accepted on writes, never returned (e.g. an interviewer's Password); declare it `virtual` too. */
  writeOnly?: boolean;
}

/** Can `$filter` use this property? (Scalar, selected from SQL, not switched off.) */
export function isFilterable(p: PropertyDef): boolean {
  return !p.virtual && !p.collection && !!p.column && p.filterable !== false;
}

/** Can `$orderby` use this property? */
export function isSortable(p: PropertyDef): boolean {
  return !p.virtual && !p.collection && !!p.column && p.sortable !== false;
}

export interface EntityModel {
  /** EntityType name in namespace `Controller`, e.g. `TelephoneBlacklistItem`. */
  typeName: string;
  /** Entity set name below /cati/, e.g. `blacklist`; null for types only returned by functions. */
  setName: string | null;
  /** Key property names (empty for keyless types such as SurveyAssignment). */
  key: string[];
  /** SQL FROM clause, e.g. `blacklist` or `calls c LEFT JOIN surveys s ON s.id = c.survey_id`. */
  from?: string;
  properties: PropertyDef[];
  /** SQL expression of the row version; present → entities carry `@odata.etag`. */
  etagColumn?: string;
  /**
   * Per-bucket bounds of the (integer, single) key by a time property (a table `bucket → min_id, max_id`,
   * kept by triggers): a `$filter` bounding that time is then read in key order from the primary key
   * (`from` replaced by `unindexedFrom`), not sorted in a temporary B-tree over the whole range.
   */
  keyRangesByTime?: { property: string; table: string; bucketMs: number; unindexedFrom: string };
}

/** An OData bound function declared in $metadata (namespace Controller). */
export interface FunctionDef {
  name: string;
  /** Binding entity type name. */
  bindingType: string;
  /** Bound to the collection (e.g. blacklist/Controller.Check) rather than one entity. */
  boundToCollection?: boolean;
  parameters: { name: string; type: EdmType }[];
  /** An action's body parameters as declared in $metadata, e.g. `{name: 'BlackListItems', type: 'Collection(Controller.X)'}`. */
  bodyParameters?: { name: string; type: string; nullable?: boolean }[];
  /** Return type, e.g. `Edm.Boolean`, `Collection(Controller.SurveyAssignment)`. */
  returnType: string;
  /** Action (POST) rather than function (GET), e.g. Controller.Import. */
  action?: boolean;
  /** A function without side effects (Get*, Check): HEAD is allowed. Every other function refuses HEAD (405). */
  sideEffectFree?: boolean;
}

export const NAMESPACE = 'Controller';
