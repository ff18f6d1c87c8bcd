/**
 * `$apply` (docs/cati-api.md#apply) over a real server: a few hundred generated queries (seeded PRNG) whose results
 * must equal a straightforward JS computation over the same rows read back through the API; malformed
 * ones → 400 with position; ungroupable properties named; paging; $metadata's ApplySupported.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

type Val = string | number | null;
type Call = Record<string, Val>;

let t: TestServer;
let calls: Call[] = [];

/** mulberry32: a small seeded PRNG so every run generates the same queries. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]! };
}

const get = (path: string) => t.json('GET', path);
const apply = (q: string, rest = '') => get(`/cati/callhistory?$apply=${encodeURIComponent(q)}${rest}`);

beforeAll(async () => {
  t = await startTestServer();
  const integrate = (await t.server.ctx.keys.create('dialer', ['cati_integrate'])).key;
  for (const id of ['p1', 'p2', 'p3']) await t.json('POST', '/cati/surveys', { body: { SurveyId: id, SurveyName: id, State: 'Open' } });
  const interviewers: number[] = [];
  for (const name of ['anna', 'ben', 'carl', 'dora']) interviewers.push((await t.json('POST', '/cati/interviewerproperties', { body: { Name: name } })).body.InterviewerId);
  const r = prng(11);
  const value = Array.from({ length: 1500 }, (_, i) => ({
    Time: new Date(Date.UTC(2026, 10, 2 + r.int(3), r.int(24), r.int(60), r.int(60))).toISOString(),
    SurveyId: r.pick(['p1', 'p2', 'p3']),
    InterviewerId: r.next() < 0.1 ? null : r.pick(interviewers),
    InterviewId: r.next() < 0.2 ? null : 1 + r.int(50),
    TelephoneNumber: `3120${i}`,
    ExtendedStatus: r.next() < 0.15 ? null : 1 + r.int(10),
    Duration: r.next() < 0.1 ? null : r.int(600),
    WaitingTime: r.int(40),
  }));
  expect((await t.json('POST', '/cati/callhistory', { body: { value }, key: integrate })).status).toBe(201);
  for (let skip = 0; skip < 1500; skip += 1000) calls.push(...(await get(`/cati/callhistory?$top=1000&$skip=${skip}`)).body.value);
  calls = calls.map(({ '@odata.etag': _etag, ...c }) => c as Call);
  expect(calls).toHaveLength(1500);
});
afterAll(() => t.close());

/** A generated query: its $apply and extra options, and the JS computation of its expected rows. */
interface Case {
  apply: string;
  rest: string;
  expected: Record<string, Val>[];
  /** Whether the order of rows is defined by the query (else both sides are compared sorted). */
  ordered: boolean;
}

const hour = (c: Call) => new Date(c.Time as string).getUTCHours();
const FILTERS: [string, (c: Call) => boolean][] = [
  ['Duration gt 300', (c) => c.Duration !== null && (c.Duration as number) > 300],
  ['not (Duration gt 300)', (c) => !(c.Duration !== null && (c.Duration as number) > 300)],
  ['ExtendedStatus ne 3', (c) => c.ExtendedStatus !== 3],
  ["SurveyId eq 'p2'", (c) => c.SurveyId === 'p2'],
  ['hour(Time) ge 12', (c) => hour(c) >= 12],
  ['InterviewerId eq null', (c) => c.InterviewerId === null],
  ['Time lt 2026-11-03T00:00:00Z', (c) => (c.Time as string) < '2026-11-03T00:00:00.000Z'],
  ['WaitingTime le 10 or ExtendedStatus in (1,2)', (c) => (c.WaitingTime as number) <= 10 || c.ExtendedStatus === 1 || c.ExtendedStatus === 2],
];
const COMPUTES: [string, string, (c: Call) => Val][] = [
  ['hour(Time)', 'Hour', hour],
  ['Duration add WaitingTime', 'Total', (c) => (c.Duration === null ? null : (c.Duration as number) + (c.WaitingTime as number))],
  ['day(Time)', 'Day', (c) => new Date(c.Time as string).getUTCDate()],
];
const GROUPABLE = ['SurveyId', 'InterviewerId', 'ExtendedStatus', 'CallCenterId'];
type Agg = { text: (p: string) => string; alias: string; prop?: string; fn: (vals: Val[], rows: Call[]) => Val };
const nonNull = (vals: Val[]) => vals.filter((v) => v !== null);
const cmp = (a: Val, b: Val) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1);
const AGGREGATES: Agg[] = [
  { text: () => '$count as Cnt', alias: 'Cnt', fn: (_v, rows) => rows.length },
  { text: (p) => `${p} with sum as Sum`, alias: 'Sum', fn: (v) => (nonNull(v).length ? nonNull(v).reduce((a, b) => (a as number) + (b as number), 0) : null) },
  { text: (p) => `${p} with min as Min`, alias: 'Min', fn: (v) => (nonNull(v).length ? nonNull(v).sort(cmp)[0]! : null) },
  { text: (p) => `${p} with max as Max`, alias: 'Max', fn: (v) => (nonNull(v).length ? nonNull(v).sort(cmp).at(-1)! : null) },
  { text: (p) => `${p} with average as Avg`, alias: 'Avg', fn: (v) => (nonNull(v).length ? (nonNull(v) as number[]).reduce((a, b) => a + b, 0) / nonNull(v).length : null) },
  { text: (p) => `${p} with countdistinct as Cd`, alias: 'Cd', fn: (v) => new Set(nonNull(v)).size },
];
const NUMERIC_PROPS = ['Duration', 'WaitingTime', 'ExtendedStatus'];
const ANY_PROPS = [...NUMERIC_PROPS, 'Time', 'SurveyId', 'InterviewerId'];

function generate(r: ReturnType<typeof prng>): Case {
  const steps: string[] = [];
  let rows = calls.map((c) => ({ ...c }));
  if (r.next() < 0.5) {
    const [text, pred] = r.pick(FILTERS);
    steps.push(`filter(${text})`);
    rows = rows.filter(pred);
  }
  const groupable = [...GROUPABLE];
  if (r.next() < 0.4) {
    const [expr, alias, fn] = r.pick(COMPUTES);
    steps.push(`compute(${expr} as ${alias})`);
    rows = rows.map((c) => ({ ...c, [alias]: fn(c) }));
    groupable.push(alias);
  }
  const groups = groupable.filter(() => r.next() < 0.3).slice(0, 2);
  const aggs = AGGREGATES.filter(() => r.next() < 0.4);
  if (aggs.length === 0) aggs.push(AGGREGATES[0]!);
  const chosen = aggs.map((a) => {
    const prop = a.alias === 'Sum' || a.alias === 'Avg' ? r.pick(NUMERIC_PROPS) : r.pick(ANY_PROPS);
    return { ...a, prop };
  });
  const aggText = `aggregate(${chosen.map((a) => a.text(a.prop)).join(',')})`;
  steps.push(groups.length ? `groupby((${groups.join(',')}),${aggText})` : aggText);
  const byKey = new Map<string, Call[]>();
  for (const c of rows) {
    const k = JSON.stringify(groups.map((g) => c[g]));
    byKey.set(k, [...(byKey.get(k) ?? []), c]);
  }
  if (!groups.length && !byKey.size) byKey.set('[]', []);
  let out = [...byKey.entries()].map(([k, members]) => {
    const keys = JSON.parse(k) as Val[];
    const row: Record<string, Val> = Object.fromEntries(groups.map((g, i) => [g, keys[i]!]));
    for (const a of chosen) row[a.alias] = a.fn(members.map((m) => m[a.prop] ?? null), members);
    return row;
  });
  let rest = '';
  let ordered = false;
  const aliases = chosen.map((a) => a.alias);
  if (r.next() < 0.3) {
    const alias = r.pick(aliases);
    const n = alias === 'Avg' ? 100 : alias === 'Cnt' || alias === 'Cd' ? 20 : 5;
    if (!['Min', 'Max'].includes(alias) || ['Duration', 'WaitingTime', 'ExtendedStatus'].includes(chosen.find((a) => a.alias === alias)!.prop!)) {
      const post = r.next() < 0.5;
      if (post) steps.push(`filter(${alias} ge ${n})`);
      else rest += `&$filter=${encodeURIComponent(`${alias} ge ${n}`)}`;
      out = out.filter((row) => row[alias] !== null && (row[alias] as number) >= n);
    }
  }
  if (r.next() < 0.4) {
    const alias = r.pick([...aliases, ...groups]);
    const desc = r.next() < 0.5;
    const top = 1 + r.int(5);
    rest += `&$orderby=${alias}${desc ? '%20desc' : ''}&$top=${top}`;
    const sign = desc ? -1 : 1;
    out.sort((a, b) => sign * cmp(a[alias]!, b[alias]!) || groups.reduce((acc, g) => acc || cmp(a[g]!, b[g]!), 0));
    out = out.slice(0, top);
    ordered = true;
  }
  return { apply: steps.join('/'), rest, expected: out, ordered };
}

const canonical = (rows: Record<string, Val>[]) =>
  rows.map((row) => JSON.stringify(Object.entries(row).map(([k, v]) => [k, typeof v === 'number' && !Number.isInteger(v) ? Number(v.toFixed(6)) : v]))).sort();

describe('$apply: generated queries agree with a JS computation over the same rows', () => {
  it('300 seeded queries', async () => {
    const r = prng(2026);
    for (let i = 0; i < 300; i++) {
      const c = generate(r);
      const got = await apply(c.apply, c.rest);
      const label = `${c.apply} ${c.rest}`;
      expect(got.status, label).toBe(200);
      const rows = got.body.value as Record<string, Val>[];
      expect(canonical(rows), label).toEqual(canonical(c.expected));
      if (c.ordered) {
        // The order itself: compare row by row.
        expect(rows.map((x) => canonical([x])[0]), label).toEqual(c.expected.map((x) => canonical([x])[0]));
      }
    }
  });
});

describe('$apply: shape, types and paging', () => {
  it('calls per hour: compute(hour(Time))/groupby with a context naming the shape', async () => {
    const got = await apply('compute(hour(Time) as Hour)/groupby((Hour),aggregate($count as Calls))', '&$orderby=Hour');
    expect(got.status).toBe(200);
    expect(got.body['@odata.context']).toMatch(/\/\$metadata#callhistory\(Hour,Calls\)$/);
    const hours = new Map<number, number>();
    for (const c of calls) hours.set(hour(c), (hours.get(hour(c)) ?? 0) + 1);
    expect(got.body.value).toEqual([...hours.entries()].sort((a, b) => a[0] - b[0]).map(([Hour, Calls]) => ({ Hour, Calls })));
  });

  it('min/max of Time are written as the API writes times; IEEE754Compatible writes counts and averages as strings', async () => {
    const got = await apply('aggregate(Time with min as First,Time with max as Last,$count as N,Duration with average as A)');
    const times = calls.map((c) => c.Time as string).sort();
    expect(got.body.value[0]).toMatchObject({ First: times[0], Last: times.at(-1), N: 1500 });
    const ieee = await t.json('GET', `/cati/callhistory?$apply=${encodeURIComponent('aggregate($count as N,Duration with average as A)')}`, {
      headers: { accept: 'application/json;IEEE754Compatible=true' },
    });
    expect(ieee.body.value[0].N).toBe('1500');
    expect(typeof ieee.body.value[0].A).toBe('string');
  });

  it('$count, $select and $skip apply to the aggregated rows; more than 1000 rows page with a next link', async () => {
    const got = await apply('groupby((Id))', '&$count=true&$select=Id');
    expect(got.body['@odata.count']).toBe(1500);
    expect(got.body.value).toHaveLength(1000);
    expect(got.body['@odata.context']).toMatch(/#callhistory\(Id\)$/);
    const next = new URL(got.body['@odata.nextLink']);
    const page2 = await get(`${next.pathname}${next.search}`);
    expect(page2.status).toBe(200);
    expect(page2.body.value).toHaveLength(500);
    expect(page2.body['@odata.nextLink']).toBeUndefined();
    expect([...got.body.value, ...page2.body.value].map((x: Call) => x.Id)).toEqual(calls.map((c) => c.Id).sort((a, b) => (a as number) - (b as number)));
    const skipped = await apply('groupby((SurveyId))', '&$skip=1&$orderby=SurveyId');
    expect(skipped.body.value).toEqual([{ SurveyId: 'p2' }, { SurveyId: 'p3' }]);
  });

  it('/{set}/$count honours $apply: the aggregated rows after $filter, as text/plain (docs/cati-api.md#apply)', async () => {
    const count = async (q: string, rest = '') => {
      const res = await t.request('GET', `/cati/callhistory/$count?$apply=${encodeURIComponent(q)}${rest}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      return res.text();
    };
    const surveys = new Set(calls.map((c) => c.SurveyId));
    expect(await count('groupby((SurveyId))')).toBe(String(surveys.size));
    expect(await count('groupby((Id))')).toBe('1500');
    const perSurvey = ['p1', 'p2', 'p3'].map((s) => calls.filter((c) => c.SurveyId === s).length);
    const threshold = Math.min(...perSurvey);
    expect(await count('groupby((SurveyId),aggregate($count as N))', `&$filter=${encodeURIComponent(`N gt ${threshold}`)}`)).toBe(String(perSurvey.filter((n) => n > threshold).length));
    const withCountTrue = await apply('groupby((SurveyId),aggregate($count as N))', `&$count=true&$filter=${encodeURIComponent(`N gt ${threshold}`)}`);
    expect(String(withCountTrue.body['@odata.count'])).toBe(await count('groupby((SurveyId),aggregate($count as N))', `&$filter=${encodeURIComponent(`N gt ${threshold}`)}`));
    const chv = await t.request('GET', `/cati/callhistorywithvariables/$count?$apply=${encodeURIComponent('groupby((EventType))')}`);
    expect(await chv.text()).toBe('1');
  });

  it('a malformed $apply on $count → 400 with position', async () => {
    const got = await get(`/cati/callhistory/$count?$apply=${encodeURIComponent('groupby(SurveyId)')}`);
    expect(got.status).toBe(400);
    expect(got.body.error.message).toMatch(/in \$apply at position 8/);
  });

  it('orderby/top/skip inside $apply, then $filter on an alias', async () => {
    const got = await apply('groupby((SurveyId),aggregate($count as N))/orderby(N desc)/top(2)/skip(1)');
    const counts = ['p1', 'p2', 'p3'].map((s) => ({ SurveyId: s, N: calls.filter((c) => c.SurveyId === s).length }));
    counts.sort((a, b) => b.N - a.N || a.SurveyId.localeCompare(b.SurveyId));
    expect(got.body.value).toEqual([counts[1]]);
  });

  it('works on the other sets: callhistorywithvariables, interviewers, surveys, blacklist, breaktypes, floor', async () => {
    const ev = await get(`/cati/callhistorywithvariables?startTime=2026-11-01T00:00:00Z&$apply=${encodeURIComponent('groupby((EventType),aggregate($count as N))')}`);
    expect(ev.body.value).toEqual([{ EventType: 'Call', N: 1500 }]);
    for (const set of ['interviewers', 'surveys', 'blacklist', 'breaktypes', 'extendedstatuses', 'floor', 'groups', 'breakhistory', 'interviewersessionhistory']) {
      const got = await get(`/cati/${set}?$apply=${encodeURIComponent('aggregate($count as N)')}`);
      expect(got.status, set).toBe(200);
      expect(typeof got.body.value[0].N, set).toBe('number');
    }
    expect((await get(`/cati/interviewers?$apply=${encodeURIComponent('aggregate($count as N)')}`)).body.value).toEqual([{ N: 4 }]);
    expect((await get(`/cati/surveys?$apply=${encodeURIComponent("filter(State eq 'Open')/groupby((State),aggregate($count as N))")}`)).body.value).toEqual([{ State: 'Open', N: 3 }]);
  });
});

describe('$apply: bad input', () => {
  const bad: [string, RegExp][] = [
    ['groupby((SurveyId),aggregate($count as N)', /at position 41$/],
    ['groupby(SurveyId)', /Expected '\(' opening the grouping properties but found 'SurveyId' in \$apply at position 8/],
    ['aggregate(Duration with median as M)', /Aggregation method 'median' is not supported.* at position 24/],
    ['aggregate(Duration as M)', /Expected 'with' but found 'as' in \$apply at position 19/],
    ['pivot(SurveyId)', /Transformation 'pivot' is not supported .* at position 0/],
    ['filter(Duration gt)', /at position 18/],
    ['top(-1)', /at position 4/],
    ['aggregate($count as N)/', /at position 23/],
    ['aggregate($count as N) extra', /at position 23/],
    ['', /Empty \$apply/],
    ['groupby((Nope))', /Unknown property 'Nope' in \$apply at position 9/],
    ['groupby((surveyid))', /did you mean 'SurveyId'/],
    ['aggregate(TelephoneNumber with average as A)', /Cannot average the property 'TelephoneNumber' .* at position 10/],
    ['compute(hour(Time) as Duration)', /The alias 'Duration' is already a property name in \$apply at position 8/],
    ['aggregate($count as N,Duration with sum as N)', /The alias 'N' is already a property name/],
    ['groupby((SurveyId))/filter(Duration gt 5)', /Unknown property 'Duration' in \$apply at position 27/],
  ];
  it.each(bad)('%s → 400 with position', async (q, message) => {
    const got = await apply(q);
    expect(got.status).toBe(400);
    expect(got.body.error.code).toBe('BadRequest');
    expect(got.body.error.message).toMatch(message);
  });

  it('grouping or aggregating a property that cannot be grouped (Variables) → 400 naming it', async () => {
    for (const [path, q] of [
      ['/cati/callhistorywithvariables?startTime=2026-11-01T00:00:00Z&', 'groupby((Variables))'],
      ['/cati/surveys?', 'groupby((Variables))'],
      ['/cati/surveys?', 'aggregate(Variables with countdistinct as V)'],
    ] as const) {
      const got = await get(`${path}$apply=${encodeURIComponent(q)}`);
      expect(got.status).toBe(400);
      expect(got.body.error.message).toMatch(/'Variables'/);
    }
  });

  it('$filter/$orderby after $apply name the aliases; an unknown one → 400', async () => {
    const got = await apply('groupby((SurveyId),aggregate($count as N))', '&$filter=Duration gt 1');
    expect(got.status).toBe(400);
    expect(got.body.error.message).toMatch(/Unknown property 'Duration' in \$filter at position 0/);
  });

  it('a $skiptoken that is not ours → 400', async () => {
    const got = await apply('groupby((Id))', '&$skiptoken=abc');
    expect(got.status).toBe(400);
  });
});

describe('$apply in $metadata', () => {
  it('every readable set carries Org.OData.Aggregation.V1.ApplySupported', async () => {
    const res = await t.request('GET', '/cati/$metadata');
    const xml = await res.text();
    expect(xml).toContain('Namespace="Org.OData.Aggregation.V1"');
    for (const set of ['callhistory', 'breakhistory', 'interviewersessionhistory', 'callhistorywithvariables', 'blacklist', 'interviewers', 'groups', 'surveys', 'floor', 'breaktypes', 'extendedstatuses']) {
      const block = new RegExp(`<Annotations Target="Controller\\.Container/${set}">(.*?)</Annotations>`, 's').exec(xml);
      expect(block?.[1], set).toMatch(/Term="Org\.OData\.Aggregation\.V1\.ApplySupported"><Record><PropertyValue Property="Transformations"><Collection><String>aggregate<\/String><String>groupby<\/String>/);
    }
  });
});
