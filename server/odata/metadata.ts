/**
 * CSDL XML ($metadata) and the JSON service document, generated from the registered EntityModels,
 * their enum types and the FunctionDefs (namespace `Controller`), so Excel and Power BI can read the feed.
 */
import type { EntityModel, FunctionDef, PropertyDef } from './model.ts';
import { NAMESPACE } from './model.ts';

export interface MetadataInput {
  /** Entity sets (model.setName set); several sets may share one type. */
  sets: EntityModel[];
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
  const nullable = isKey || p.collection ? false : (p.nullable ?? false);
  return `<Property Name="${esc(p.name)}" Type="${esc(propertyType(p))}"${nullable ? '' : ' Nullable="false"'}/>`;
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
    .map((p) => `        ${p}`)
    .join('\n');
  return `      <${tag} Name="${esc(f.name)}" IsBound="true">\n${params}\n        <ReturnType Type="${esc(f.returnType)}"/>\n      </${tag}>`;
}

/** The CSDL XML document of the service (OData 4.0). */
export function metadataXml(input: MetadataInput): string {
  const byType = new Map<string, EntityModel>();
  for (const m of [...input.sets, ...input.types]) if (!byType.has(m.typeName)) byType.set(m.typeName, m);
  const enums = new Map<string, readonly string[]>();
  for (const m of byType.values()) {
    for (const p of m.properties) if (p.enumName && p.enumValues && !enums.has(p.enumName)) enums.set(p.enumName, p.enumValues);
  }
  const enumXml = [...enums].map(
    ([name, values]) =>
      `      <EnumType Name="${esc(name)}">\n${values.map((v, i) => `        <Member Name="${esc(v)}" Value="${i}"/>`).join('\n')}\n      </EnumType>`,
  );
  const sets = input.sets.map((m) => `        <EntitySet Name="${esc(m.setName!)}" EntityType="${NAMESPACE}.${esc(m.typeName)}"/>`);
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">',
    '  <edmx:DataServices>',
    `    <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="${NAMESPACE}">`,
    ...enumXml,
    ...[...byType.values()].map(structuredType),
    ...input.functions.map(operation),
    '      <EntityContainer Name="Container">',
    ...sets,
    '      </EntityContainer>',
    '    </Schema>',
    '  </edmx:DataServices>',
    '</edmx:Edmx>',
    '',
  ].join('\n');
}

/** The JSON service document: one entry per entity set. */
export function serviceDocument(serviceRoot: string, sets: EntityModel[]): unknown {
  return {
    '@odata.context': `${serviceRoot}/$metadata`,
    value: sets.map((m) => ({ name: m.setName, kind: 'EntitySet', url: m.setName })),
  };
}
