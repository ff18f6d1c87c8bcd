/**
 * Runs the OASIS OData ABNF test cases (odata-abnf-testcases.yaml) of the subset the contract supports
 * through our parsers in schema-less syntax mode: each supported case must be accepted, or rejected when
 * the file gives FailAt. Cases needing features outside the subset are classified by reason and counted.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseFilter, isLiteral, type FilterNode } from '../../server/odata/parse-filter.ts';
import { parseResourcePath } from '../../server/odata/parse-path.ts';
import { parseQueryOptions } from '../../server/odata/query-options.ts';
import { sharedData } from '../helpers/shared-data.ts';

const FILE = sharedData('odata/odata-abnf-testcases.yaml');

interface Case {
  Name: string;
  Rule: string;
  Input: string;
  FailAt?: number;
}

const EXPRESSION_RULES = new Set(['boolCommonExpr', 'boolcommonExpr', 'commonExpr', 'notExpr', 'firstMemberExpr', 'propertyPathExpr']);
const OPTION_RULES = new Set(['filter', 'orderby', 'orderBy', 'queryOptions', 'select', 'skiptoken', 'systemQueryOption', 'customQueryOption']);
const PATH_RULES = new Set(['resourcePath', 'odataRelativeUri']);
/** Literal rules and the literal types they accept. `*Value` rules are payload forms: not percent-decoded. */
const LITERAL_RULES: Record<string, string[]> = {
  stringLiteral: ['string'],
  primitiveLiteral: ['string', 'int', 'decimal', 'boolean', 'null', 'date', 'datetime', 'time', 'guid', 'enum'],
  decimalValue: ['int', 'decimal'],
  decimalLiteral: ['int', 'decimal'],
  doubleValue: ['int', 'decimal'],
  doubleLiteral: ['int', 'decimal'],
  singleValue: ['int', 'decimal'],
  singleLiteral: ['int', 'decimal'],
  dateTimeOffsetValue: ['datetime'],
  dateTimeOffsetLiteral: ['datetime'],
  dateTimeOffsetValueInUrl: ['datetime'],
  date: ['date'],
  dateValue: ['date'],
  timeOfDayValue: ['time'],
  timeOfDayLiteral: ['time'],
  enumLiteral: ['enum', 'string'],
  boolean: ['boolean'],
};

/** Features outside the contract's subset, tested on the raw input (first match wins). */
const FEATURES: [string, RegExp][] = [
  ['lambda any/all', /(^|\/)(any|all)\(/],
  ['$expand', /(^|[?&(;])\$?expand=/i],
  ['$search', /(^|[?&(;])\$?search=/i],
  ['$compute/$apply/$index/$levels/$schemaversion/$id/$deltatoken', /(^|[?&(;])\$?(compute|apply|index|levels|schemaversion|id|deltatoken)=/i],
  ['geo types and functions', /geo\.|geography'|geometry'/i],
  ['duration literals', /duration'/i],
  ['binary literals', /binary'/i],
  ['JSON array/object literals', /[[\]{}]|%5B|%7B|^"/i],
  ['$it/$this/$root', /\$(it|this|root)\b/],
  ['cast/isof', /\b(cast|isof)\(/],
  ['has operator', /\shas\s/],
  ['parameter aliases and annotations', /@/],
  [
    'unsupported functions (matchesPattern, fractionalseconds, totaloffsetminutes, totalseconds, maxdatetime, mindatetime, ceiling, floor, round, hassubset, hassubsequence)',
    /\b(matchesPattern|fractionalseconds|totaloffsetminutes|totalseconds|maxdatetime|mindatetime|ceiling|floor|round|hassubset|hassubsequence)(\(|%28)/i,
  ],
  ['path segments $count/$ref/$value/$entity/$batch/$all/$crossjoin/$query/$each/$filter()/$metadata', /(^|\/)\$(count|ref|value|entity|batch|all|crossjoin|query|each|filter\(|metadata)/],
  ['negative or 5-digit years', /(^|[^0-9])-\d{4,}-\d{2}|\b\d{5,}-\d{2}-\d{2}/],
  ['system query options without $', /(^|[?&])(filter|orderby|top|skip|format|select|count|skiptoken)=/i],
  ['$format other than json', /\$format=(?!json(&|$))/i],
  ['custom query options with ! names', /(^|[?&])!/],
];

/** Features only our resource-path subset lacks (navigation, composite keys, function imports, singletons...). */
function pathFeature(input: string, c: Record<string, string[]>): string | undefined {
  const path = input.split('?')[0]!;
  const segments = path.split('/');
  const first = segments[0]!.replace(/(\(|%28).*/, '');
  const imports = [...(c.entityColFunctionImport ?? []), ...(c.entityFunctionImport ?? []), ...(c.complexFunctionImport ?? []), ...(c.complexColFunctionImport ?? []),
    ...(c.primitiveColFunctionImport ?? []), ...(c.actionImport ?? [])];
  if (imports.includes(first)) return 'function/action imports';
  if ((c.singletonEntity ?? []).includes(first)) return 'singletons';
  if (/^[A-Za-z_]+\.[A-Za-z_]+/.test(segments[0]!) || /^\w+(\(\)|%28%29)/.test(segments[0]!)) return 'function/action imports';
  const types = [...(c.entityTypeName ?? []), ...(c.complexTypeName ?? [])];
  if (segments.slice(1).some((s) => types.includes(s.replace(/^\w+\./, '').replace(/\(.*/, '')))) return 'type casts in paths';
  if (/\([^)]*,[^)]*\)/.test(segments[0]!) || /;/.test(segments[0]!)) return 'composite keys';
  const rest = segments.slice(1).filter((s) => s !== '');
  if (rest.length > 1) return 'navigation and multi-segment paths';
  if (rest.length === 1 && !rest[0]!.includes('.')) return 'navigation and multi-segment paths';
  if (rest.length === 1 && /\)\(/.test(rest[0]!)) return 'navigation and multi-segment paths';
  return undefined;
}

function classify(tc: Case, constraints: Record<string, string[]>): string | undefined {
  const supportedRule = EXPRESSION_RULES.has(tc.Rule) || OPTION_RULES.has(tc.Rule) || PATH_RULES.has(tc.Rule) || tc.Rule in LITERAL_RULES || tc.Rule === 'functionParameter';
  if (!supportedRule) return `rule '${tc.Rule}' outside the subset`;
  for (const [reason, re] of FEATURES) if (re.test(tc.Input)) return reason;
  if (EXPRESSION_RULES.has(tc.Rule) && /[A-Za-z]\.[A-Za-z]+(\(|$|\/)/.test(tc.Input)) return 'qualified functions and type casts in expressions';
  if (OPTION_RULES.has(tc.Rule) && /[A-Za-z]\.[A-Za-z]+(\(|%28)/.test(tc.Input)) return 'qualified functions and type casts in expressions';
  if ((EXPRESSION_RULES.has(tc.Rule) || OPTION_RULES.has(tc.Rule)) && /\/\w+\(/.test(tc.Input)) return 'functions bound in member paths';
  if (PATH_RULES.has(tc.Rule)) return pathFeature(tc.Input, constraints);
  return undefined;
}

const decode = (s: string) => decodeURIComponent(s);

function literalType(n: FilterNode): string | undefined {
  if (n.kind === 'literal') return n.type;
  if (n.kind === 'negate' && isLiteral(n) && n.operand.kind === 'literal') return n.operand.type;
  return undefined;
}

/** Parses query options: `&`-separated for the queryOptions rule, otherwise the input is one option. */
function runOptions(query: string, several = true): void {
  const options: Record<string, string | string[]> = {};
  for (const part of several ? query.split('&') : [query]) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = decode(eq < 0 ? part : part.slice(0, eq));
    const value = eq < 0 ? '' : decode(part.slice(eq + 1));
    const prev = options[name];
    options[name] = prev === undefined ? value : ([] as string[]).concat(prev, value);
  }
  parseQueryOptions(options);
}

/** True when our parsers accept the input under the case's rule. */
function accepts(tc: Case): boolean {
  try {
    const input = tc.Input;
    if (EXPRESSION_RULES.has(tc.Rule)) parseFilter(decode(input));
    else if (OPTION_RULES.has(tc.Rule)) runOptions(input, tc.Rule === 'queryOptions');
    else if (PATH_RULES.has(tc.Rule)) {
      const q = input.indexOf('?');
      parseResourcePath('/' + (q < 0 ? input : input.slice(0, q)));
      if (q >= 0) runOptions(input.slice(q + 1));
    } else if (tc.Rule === 'functionParameter') {
      const p = parseResourcePath(`/x/NS.F(${input})`);
      if (p.kind !== 'resource' || p.operation?.args.length !== 1) return false;
    } else {
      const text = tc.Rule.endsWith('Value') ? input : decode(input);
      const type = literalType(parseFilter(text));
      if (!type || !LITERAL_RULES[tc.Rule]!.includes(type)) return false;
    }
    return true;
  } catch (e) {
    const status = (e as { status?: number }).status;
    if ((status !== undefined && status >= 400 && status < 500) || e instanceof URIError) return false;
    throw e;
  }
}

describe('OASIS OData ABNF test cases (supported subset, syntax mode)', () => {
  it.skipIf(!FILE)('agree with our parsers', () => {
    const doc = parseYaml(readFileSync(FILE!, 'utf8')) as { TestCases: Case[]; Constraints: Record<string, string[]> };
    const unsupported = new Map<string, number>();
    const disagreements: string[] = [];
    let ran = 0;
    let negatives = 0;
    for (const tc of doc.TestCases) {
      const reason = classify(tc, doc.Constraints);
      if (reason) {
        unsupported.set(reason, (unsupported.get(reason) ?? 0) + 1);
        continue;
      }
      ran++;
      const expectAccept = tc.FailAt === undefined;
      if (!expectAccept) negatives++;
      if (accepts(tc) !== expectAccept) {
        disagreements.push(`${tc.Rule} ${JSON.stringify(tc.Input)}: expected ${expectAccept ? 'accept' : `reject at ${tc.FailAt}`} (${tc.Name})`);
      }
    }
    const skipped = [...unsupported.values()].reduce((a, b) => a + b, 0);
    const reasons = [...unsupported].sort((a, b) => b[1] - a[1]).map(([r, n]) => `  ${n} ${r}`).join('\n');
    console.log(`OASIS ABNF subset: ${ran} cases ran (${negatives} must-reject), ${ran - disagreements.length} passed; ${skipped} unsupported (by reason:\n${reasons})`);
    if (disagreements.length) console.log(disagreements.join('\n'));
    expect(ran).toBeGreaterThan(100);
    expect(negatives).toBeGreaterThan(10);
    expect(disagreements).toEqual([]);
  });
});
