/**
 * CSDL XML ($metadata) and the JSON service document, generated from the registered entity sets (what
 * each serves), their EntityModels and enum types and the FunctionDefs (namespace `Controller`), so
 * Excel, Power BI, SAP UI5 and OpenAPI generators read exactly what the service does.
 */
import { containerAnnotations, entitySetAnnotations, propertyAnnotations, VOCABULARY_REFERENCES, type SetDescription } from './metadata-annotations.ts';
import type { EntityModel, FunctionDef, PropertyDef } from './model.ts';
import { NAMESPACE } from './model.ts';

export type { SetDescription } from './metadata-annotations.ts';

export interface MetadataInput {
  /** Entity sets and what each serves; several sets may share one type. */
  sets: SetDescription[];
  /** Types only returned by operations (keyless → ComplexType). */
  types: EntityModel[];
  functions: FunctionDef[];
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function propertyType(p: PropertyDef): string {
  const base = p.complexType ? `${NAMESPACE}.${p.complexType}` : p.enumName ? `${NAMESPACE}.${p.enumName}` : p.type;
  return p.collection ? `Collection(${base})` : base;
}

function property(p: PropertyDef, isKey: boolean): string {
  const nullable = isKey || p.collection ? false : (p.nullable ?? p.writeOnly ?? false);
  // Times are written with milliseconds (docs/cati-api.md#odata): without Precision a client may expect none.
  const precision = p.type === 'Edm.DateTimeOffset' && !p.complexType && !p.enumName ? ' Precision="3"' : '';
  return `<Property Name="${esc(p.name)}" Type="${esc(propertyType(p))}"${nullable ? '' : ' Nullable="false"'}${precision}/>`;
}

/**
 * The vocabulary annotations as external `<Annotations Target="…">` blocks: every consumer reads these
 * (SAP's edmx-parser ignores annotations written inline in EntitySet and Property elements).
 */
function annotationBlocks(input: MetadataInput, types: EntityModel[]): string[] {
  const block = (target: string, annotations: string[]) =>
    annotations.length ? [`      <Annotations Target="${esc(target)}">`, ...annotations.map((a) => `        ${a}`), '      </Annotations>'] : [];
  return [
    ...types.flatMap((m) => m.properties.flatMap((p) => block(`${NAMESPACE}.${m.typeName}/${p.name}`, propertyAnnotations(p)))),
    ...input.sets.flatMap((s) => block(`${NAMESPACE}.Container/${s.model.setName}`, entitySetAnnotations(s))),
    ...block(`${NAMESPACE}.Container`, containerAnnotations()),
  ];
}

function structuredType(m: EntityModel): string {
  const props = m.properties.map((p) => `        ${property(p, m.key.includes(p.name))}`).join('\n');
  if (m.key.length === 0) return `      <ComplexType Name="${esc(m.typeName)}">\n${props}\n      </ComplexType>`;
  const key = m.key.map((k) => `<PropertyRef Name="${esc(k)}"/>`).join('');
  return `      <EntityType Name="${esc(m.typeName)}">\n        <Key>${key}</Key>\n${props}\n      </EntityType>`;
}

function operation(f: FunctionDef): string {
  const tag = f.action ? 'Action' : 'Function';
  const binding = f.boundToCollection ? `Collection(${NAMESPACE}.${f.bindingType})` : `${NAMESPACE}.${f.bindingType}`;
  const params = [`<Parameter Name="bindingParameter" Type="${esc(binding)}" Nullable="false"/>`]
    .concat(f.parameters.map((p) => `<Parameter Name="${esc(p.name)}" Type="${esc(p.type)}" Nullable="false"/>`))
    .concat((f.bodyParameters ?? []).map((p) => `<Parameter Name="${esc(p.name)}" Type="${esc(p.type)}"${p.nullable ? '' : ' Nullable="false"'}/>`))
    .map((p) => `        ${p}`)
    .join('\n');
  return `      <${tag} Name="${esc(f.name)}" IsBound="true">\n${params}\n        <ReturnType Type="${esc(f.returnType)}"/>\n      </${tag}>`;
}

/** The CSDL XML document of the service (OData 4.0). */
export function metadataXml(input: MetadataInput): string {
  const byType = new Map<string, EntityModel>();
  for (const m of [...input.sets.map((s) => s.model), ...input.types]) if (!byType.has(m.typeName)) byType.set(m.typeName, m);
  const enums = new Map<string, readonly string[]>();
  for (const m of byType.values()) {
    for (const p of m.properties) if (p.enumName && p.enumValues && !enums.has(p.enumName)) enums.set(p.enumName, p.enumValues);
  }
  const enumXml = [...enums].map(
    ([name, values]) =>
      `      <EnumType Name="${esc(name)}">\n${values.map((v, i) => `        <Member Name="${esc(v)}" Value="${i}"/>`).join('\n')}\n      </EnumType>`,
  );
  const sets = input.sets.map((s) => {
    const hidden = s.includeInServiceDocument ? '' : ' IncludeInServiceDocument="false"';
    return `        <EntitySet Name="${esc(s.model.setName!)}" EntityType="${NAMESPACE}.${esc(s.model.typeName)}"${hidden}/>`;
  });
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">',
    ...VOCABULARY_REFERENCES,
    '  <edmx:DataServices>',
    `    <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="${NAMESPACE}">`,
    ...enumXml,
    ...[...byType.values()].map(structuredType),
    ...input.functions.map(operation),
    '      <EntityContainer Name="Container">',
    ...sets,
    '      </EntityContainer>',
    ...annotationBlocks(input, [...byType.values()]),
    '    </Schema>',
    '  </edmx:DataServices>',
    '</edmx:Edmx>',
    '',
  ].join('\n');
}

/** The JSON service document: one entry per entity set listed in it (`@odata.context` unless metadata=none). */
export function serviceDocument(serviceRoot: string, sets: SetDescription[], withContext = true): unknown {
  return {
    ...(withContext ? { '@odata.context': `${serviceRoot}/$metadata` } : {}),
    value: sets.filter((s) => s.includeInServiceDocument).map((s) => ({ name: s.model.setName, kind: 'EntitySet', url: s.model.setName })),
  };
}
