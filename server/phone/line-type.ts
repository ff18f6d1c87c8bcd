/**
 * What kind of line a normalised number is and where it belongs (docs/cati-api.md#scrubs, `annotate=true`),
 * as libphonenumber-js's full metadata types it, loaded only when asked. libphonenumber's own `getType()`
 * compiles its patterns again for every number (about 35,000 numbers/s); here each country's patterns are
 * compiled once and tried in libphonenumber's order, so a scrub annotates several hundred thousand rows/s.
 */
import { createRequire } from 'node:module';
import type { MetadataJson } from 'libphonenumber-js/core';

/** The line types a scrub names (libphonenumber's types in lower case, `fixed_line` as `fixed`). */
export type LineType = 'mobile' | 'fixed' | 'fixed_or_mobile' | 'toll_free' | 'premium_rate' | 'voip' | 'shared_cost' | 'personal' | 'pager' | 'uan' | 'voicemail';

/** The types after fixed line and mobile, in libphonenumber's order. */
const OTHER_TYPES: readonly [string, LineType][] = [
  ['PREMIUM_RATE', 'premium_rate'], ['TOLL_FREE', 'toll_free'], ['SHARED_COST', 'shared_cost'], ['VOIP', 'voip'],
  ['PERSONAL_NUMBER', 'personal'], ['PAGER', 'pager'], ['UAN', 'uan'], ['VOICEMAIL', 'voicemail'],
];

interface TypePattern {
  re: RegExp;
  lengths: readonly number[] | undefined;
}

interface Plan {
  country: string;
  general: RegExp;
  fixed: TypePattern | undefined;
  /** undefined: no mobile type; null: the mobile pattern is the fixed one (fixed_or_mobile). */
  mobile: TypePattern | null | undefined;
  others: [TypePattern, LineType][];
}

/** The annotation of one number: its line type and its country (both '' when unknown). */
export type Annotate = (digits: string) => [LineType | '', string];

const whole = (pattern: string) => new RegExp(`^(?:${pattern})$`);

interface PlanSource {
  nationalNumberPattern(): string;
  type(name: string): { pattern(): string; possibleLengths(): number[] | undefined } | undefined;
}

function typePattern(plan: PlanSource, name: string): TypePattern | undefined {
  const t = plan.type(name);
  const pattern = t?.pattern();
  return t && pattern ? { re: whole(pattern), lengths: t.possibleLengths() } : undefined;
}

const matches = (p: TypePattern | null | undefined, national: string) => !!p && (!p.lengths || p.lengths.includes(national.length)) && p.re.test(national);

/** The line type of a national number under one plan (libphonenumber's getNumberType), or undefined when not valid there. */
function typeIn(plan: Plan, national: string): LineType | undefined {
  if (!plan.general.test(national)) return undefined;
  if (matches(plan.fixed, national)) return plan.mobile === null || plan.mobile === undefined || matches(plan.mobile, national) ? 'fixed_or_mobile' : 'fixed';
  if (matches(plan.mobile, national)) return 'mobile';
  for (const [p, type] of plan.others) if (matches(p, national)) return type;
  return undefined;
}

/**
 * Loads the full metadata and answers the annotation function: `digits` are country code + national number
 * (as a scrub normalises them under a phone region, or the digits of an international number).
 */
export function loadAnnotate(): Annotate {
  const require = createRequire(import.meta.url);
  const { Metadata } = require('libphonenumber-js/core') as typeof import('libphonenumber-js/core');
  const json = require('libphonenumber-js/metadata.max.json') as MetadataJson;
  const metadata = new Metadata(json);
  const byCode = new Map<string, Plan[]>();
  const plansOf = (code: string): Plan[] | undefined => {
    let plans = byCode.get(code);
    if (plans) return plans;
    const countries = (json as unknown as { country_calling_codes: Record<string, string[]> }).country_calling_codes[code];
    if (!countries) return undefined;
    plans = countries.map((country) => {
      metadata.selectNumberingPlan(country as never);
      const plan = metadata.numberingPlan as unknown as PlanSource;
      const mobileType = plan.type('MOBILE');
      return {
        country,
        general: whole(plan.nationalNumberPattern()),
        fixed: typePattern(plan, 'FIXED_LINE'),
        mobile: mobileType && mobileType.pattern() === '' ? null : typePattern(plan, 'MOBILE'),
        others: OTHER_TYPES.flatMap(([name, type]) => {
          const p = typePattern(plan, name);
          return p ? [[p, type] as [TypePattern, LineType]] : [];
        }),
      };
    });
    byCode.set(code, plans);
    return plans;
  };
  return (digits) => {
    for (let n = 1; n <= 3 && n < digits.length; n++) {
      const plans = plansOf(digits.slice(0, n));
      if (!plans) continue;
      const national = digits.slice(n);
      for (const plan of plans) {
        const type = typeIn(plan, national);
        if (type) return [type, plan.country];
      }
      return ['', plans.length === 1 ? plans[0]!.country : ''];
    }
    return ['', ''];
  };
}
