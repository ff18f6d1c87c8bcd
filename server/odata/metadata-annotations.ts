/**
 * The vocabulary annotations of $metadata (docs/cati-api.md#metadata), derived from what each entity set really
 * serves (`SetDescription`, built by the dispatcher from the routes a set declares) and from the
 * property flags of its model — never from a hand-kept list:
 * - Org.OData.Capabilities.V1 Insert/Update/Delete/ReadRestrictions on every set, IndexableByKey false
 *   where no route takes a key, Filter/SortRestrictions naming the properties that cannot be used,
 *   SearchRestrictions and ExpandRestrictions (neither $search nor $expand is served),
 *   Org.OData.Aggregation.V1.ApplySupported (the `$apply` transformations), and
 *   BatchSupported false on the container;
 * - Org.OData.Core.V1.Computed on server-set properties, Core.Permissions Write on write-only ones.
 */
import type { EntityModel, PropertyDef } from './model.ts';
import { isFilterable, isSortable } from './model.ts';

const CAPABILITIES = 'Org.OData.Capabilities.V1';
const CORE = 'Org.OData.Core.V1';
const AGGREGATION = 'Org.OData.Aggregation.V1';

/** What one entity set serves, as the dispatcher knows it from the set's routes. */
export interface SetDescription {
  model: EntityModel;
  /** Collection GET. */
  readable: boolean;
  /** GET by key. */
  readableByKey: boolean;
  /** POST to the collection. */
  insertable: boolean;
  /** PUT or PATCH by key. */
  updatable: boolean;
  /** DELETE by key. */
  deletable: boolean;
  /** Listed in the service document (false for the write-only /interviewerproperties). */
  includeInServiceDocument: boolean;
}

/** The `<edmx:Reference>`s of the vocabularies used below. */
export const VOCABULARY_REFERENCES = [
  `  <edmx:Reference Uri="https://oasis-tcs.github.io/odata-vocabularies/vocabularies/${CORE}.xml">`,
  `    <edmx:Include Namespace="${CORE}" Alias="Core"/>`,
  '  </edmx:Reference>',
  `  <edmx:Reference Uri="https://oasis-tcs.github.io/odata-vocabularies/vocabularies/${CAPABILITIES}.xml">`,
  `    <edmx:Include Namespace="${CAPABILITIES}" Alias="Capabilities"/>`,
  '  </edmx:Reference>',
  `  <edmx:Reference Uri="https://oasis-tcs.github.io/odata-vocabularies/vocabularies/${AGGREGATION}.xml">`,
  `    <edmx:Include Namespace="${AGGREGATION}" Alias="Aggregation"/>`,
  '  </edmx:Reference>',
];

const bool = (name: string, value: boolean) => `<PropertyValue Property="${name}" Bool="${value}"/>`;
const record = (term: string, ...values: string[]) => `<Annotation Term="${CAPABILITIES}.${term}"><Record>${values.join('')}</Record></Annotation>`;
const paths = (name: string, props: PropertyDef[]) =>
  `<PropertyValue Property="${name}"><Collection>${props.map((p) => `<PropertyPath>${p.name}</PropertyPath>`).join('')}</Collection></PropertyValue>`;

/** The annotations of one entity set (target `Controller.Container/<set>`). */
export function entitySetAnnotations(set: SetDescription): string[] {
  const out = [
    record('InsertRestrictions', bool('Insertable', set.insertable)),
    record('UpdateRestrictions', bool('Updatable', set.updatable)),
    record('DeleteRestrictions', bool('Deletable', set.deletable)),
    record(
      'ReadRestrictions',
      bool('Readable', set.readable),
      `<PropertyValue Property="ReadByKeyRestrictions"><Record>${bool('Readable', set.readableByKey)}</Record></PropertyValue>`,
    ),
  ];
  if (!set.readableByKey && !set.updatable && !set.deletable) out.push(`<Annotation Term="${CAPABILITIES}.IndexableByKey" Bool="false"/>`);
  if (set.readable) {
    const visible = set.model.properties.filter((p) => !p.writeOnly);
    const nonFilterable = visible.filter((p) => !isFilterable(p));
    const nonSortable = visible.filter((p) => !isSortable(p));
    out.push(record('FilterRestrictions', bool('Filterable', true), ...(nonFilterable.length ? [paths('NonFilterableProperties', nonFilterable)] : [])));
    out.push(record('SortRestrictions', bool('Sortable', true), ...(nonSortable.length ? [paths('NonSortableProperties', nonSortable)] : [])));
    out.push(record('SearchRestrictions', bool('Searchable', false)));
    out.push(record('ExpandRestrictions', bool('Expandable', false)));
    out.push(applySupported());
  }
  return out;
}

/** The `$apply` transformations apply-parse.ts serves (docs/cati-api.md#apply). */
const TRANSFORMATIONS = ['aggregate', 'groupby', 'filter', 'compute', 'orderby', 'top', 'skip', 'identity'];

/** Org.OData.Aggregation.V1.ApplySupported: what `$apply` serves on every readable set. */
function applySupported(): string {
  const strings = TRANSFORMATIONS.map((t) => `<String>${t}</String>`).join('');
  return (
    `<Annotation Term="${AGGREGATION}.ApplySupported"><Record>` +
    `<PropertyValue Property="Transformations"><Collection>${strings}</Collection></PropertyValue>` +
    `<PropertyValue Property="Rollup" EnumMember="${AGGREGATION}.RollupType/None"/>` +
    '</Record></Annotation>'
  );
}

/** The annotations of the entity container. */
export function containerAnnotations(): string[] {
  return [`<Annotation Term="${CAPABILITIES}.BatchSupported" Bool="false"/>`];
}

/** The annotations of one property (target `Controller.<Type>/<Property>`). */
export function propertyAnnotations(p: PropertyDef): string[] {
  const out: string[] = [];
  if (p.computed) out.push(`<Annotation Term="${CORE}.Computed" Bool="true"/>`);
  if (p.writeOnly) out.push(`<Annotation Term="${CORE}.Permissions" EnumMember="${CORE}.Permission/Write"/>`);
  return out;
}
