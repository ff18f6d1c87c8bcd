import { describe, expect, it } from 'vitest';
import { parseFilter, parseOrderby } from '../../server/odata/parse-filter.ts';
import { bindArguments, parseResourcePath, typedKey } from '../../server/odata/parse-path.ts';
import { parseQueryOptions } from '../../server/odata/query-options.ts';
import type { EntityModel, FunctionDef } from '../../server/odata/model.ts';

const fails = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected a rejection');
};

describe('$filter parser', () => {
  it('builds an AST with positions and precedence (and binds tighter than or, not covers a comparison)', () => {
    const ast = parseFilter('A eq 1 or not B gt 2 and C');
    expect(ast).toMatchObject({
      kind: 'binary',
      op: 'or',
      pos: 7,
      left: { kind: 'binary', op: 'eq', left: { kind: 'property', path: ['A'], pos: 0 } },
      right: { kind: 'binary', op: 'and', left: { kind: 'not', operand: { kind: 'binary', op: 'gt' } } },
    });
  });
  it('arithmetic: mul before add before comparison', () => {
    expect(parseFilter('A add 2 mul 3 eq 8')).toMatchObject({
      op: 'eq',
      left: { op: 'add', right: { op: 'mul' } },
    });
  });
  it('operators and functions are case-insensitive, literals are typed', () => {
    expect(parseFilter("A EQ 'x' AND contains(B,'y') Or C Ne NULL")).toMatchObject({ op: 'or' });
    expect(parseFilter('T gt 2026-11-02T09:15:00+02:00')).toMatchObject({ right: { type: 'datetime' } });
    expect(parseFilter('T gt 2026-11-02')).toMatchObject({ right: { type: 'date' } });
    expect(parseFilter('T gt 09:15')).toMatchObject({ right: { type: 'time' } });
    expect(parseFilter('P eq -1.5e3')).toMatchObject({ right: { type: 'decimal', value: -1500 } });
    expect(parseFilter("N eq 'O''Neil'")).toMatchObject({ right: { type: 'string', value: "O'Neil" } });
    expect(parseFilter("K eq Controller.BlacklistType'Equal'")).toMatchObject({ right: { type: 'enum', value: 'Equal', qualifier: 'Controller.BlacklistType' } });
    expect(parseFilter('X in (1, 2, 3)')).toMatchObject({ kind: 'in', list: [{ value: 1 }, { value: 2 }, { value: 3 }] });
  });
  it('reports the position of syntax errors', () => {
    expect(fails(() => parseFilter("Name eq 'abc"))).toBe('Unterminated string literal in $filter at position 8');
    expect(fails(() => parseFilter('Id eq 1 and'))).toBe('Expected an expression but found the end of the expression in $filter at position 11');
    expect(fails(() => parseFilter('(Id eq 1'))).toBe("Expected ')' but found the end of the expression in $filter at position 8");
    expect(fails(() => parseFilter('Id eq 1 Id'))).toBe("Unexpected 'Id' in $filter at position 8");
    expect(fails(() => parseFilter('Id eq #'))).toBe("Unexpected character '#' in $filter at position 6");
    expect(fails(() => parseFilter('T eq 2026-13-01'))).toBe("Invalid date '2026-13-01' in $filter at position 5");
    expect(fails(() => parseFilter('Id eq eq'))).toMatch(/operator 'eq' in \$filter at position 6/);
    expect(fails(() => parseFilter(''))).toMatch(/Empty expression/);
  });
  it('bounds nesting depth and length', () => {
    expect(fails(() => parseFilter('('.repeat(200) + 'A' + ')'.repeat(200)))).toMatch(/nested too deeply/);
    expect(fails(() => parseFilter('A eq ' + '1'.repeat(9000)))).toMatch(/longer than/);
  });
});

describe('$orderby parser', () => {
  it('parses several keys with directions', () => {
    expect(parseOrderby('A desc, B,C asc')).toMatchObject([
      { desc: true, expr: { path: ['A'] } },
      { desc: false, expr: { path: ['B'] } },
      { desc: false, expr: { path: ['C'] } },
    ]);
    expect(fails(() => parseOrderby('A desc desc'))).toMatch(/position 7/);
  });
});

describe('query options', () => {
  it('accepts the supported options and rejects the rest', () => {
    const o = parseQueryOptions({ $top: '5', $skip: '2', $count: 'true', $format: 'json', $select: 'A,B', startTime: 'x' });
    expect(o).toMatchObject({ top: 5, skip: 2, count: true, select: ['A', 'B'], params: { startTime: 'x' } });
    expect(fails(() => parseQueryOptions({ $top: '10001' }))).toMatch(/at most 10000/);
    expect(fails(() => parseQueryOptions({ $top: '-1' }))).toMatch(/non-negative integer/);
    expect(fails(() => parseQueryOptions({ $expand: 'X' }))).toMatch(/not supported/);
    expect(fails(() => parseQueryOptions({ $search: 'X' }))).toMatch(/not supported/);
    expect(fails(() => parseQueryOptions({ $foo: 'X' }))).toMatch(/Unknown query option/);
    expect(parseQueryOptions({ $format: 'xml' }).format).toBe('xml'); // negotiated later (406), not a syntax error
    expect(fails(() => parseQueryOptions({ $top: ['1', '2'] }))).toMatch(/more than once/);
  });
});

const model: EntityModel = { typeName: 'G', setName: 'groups', key: ['GroupId'], properties: [{ name: 'GroupId', column: 'id', type: 'Edm.Int32' }] };
const survey: EntityModel = { typeName: 'S', setName: 'surveys', key: ['SurveyId'], properties: [{ name: 'SurveyId', column: 'id', type: 'Edm.String' }] };
const fn: FunctionDef = {
  name: 'AssignOnCall',
  bindingType: 'G',
  parameters: [
    { name: 'surveyId', type: 'Edm.String' },
    { name: 'interviewId', type: 'Edm.Int32' },
  ],
  returnType: 'Edm.Boolean',
};

describe('resource path parser', () => {
  it('parses sets, keys, named keys, string keys and operations', () => {
    expect(parseResourcePath('/')).toEqual({ kind: 'service' });
    expect(parseResourcePath('/$metadata')).toEqual({ kind: 'metadata' });
    expect(parseResourcePath('/blacklist')).toEqual({ kind: 'resource', set: 'blacklist' });
    const p = parseResourcePath("/surveys('p''1%2F2')");
    expect(p).toMatchObject({ set: 'surveys', key: { value: { kind: 'string', value: "p'1/2" } } });
    expect(typedKey(survey, (p as any).key)).toBe("p'1/2");
    const g = parseResourcePath("/groups(GroupId=5)/Controller.AssignOnCall(surveyId='p1',interviewId=7)");
    expect(typedKey(model, (g as any).key)).toBe(5);
    expect(bindArguments(fn, (g as any).operation)).toEqual({ surveyId: 'p1', interviewId: 7 });
    expect(parseResourcePath('/blacklist/Controller.Import')).toMatchObject({ operation: { name: 'Controller.Import', args: [] } });
  });
  it('rejects keys of the wrong type or out of int32 range', () => {
    const key = (path: string) => typedKey(model, (parseResourcePath(path) as any).key);
    expect(fails(() => key("/groups('5')"))).toMatch(/must be an integer in the resource path at position 8/);
    expect(fails(() => key('/groups(2147483648)'))).toMatch(/int32/);
    expect(fails(() => key('/groups(1.5)'))).toMatch(/integer/);
    expect(fails(() => key('/groups(Id=5)'))).toMatch(/Unknown key 'Id'/);
    expect(fails(() => typedKey(survey, (parseResourcePath('/surveys(5)') as any).key))).toMatch(/string in single quotes/);
  });
  it('an int64 key beyond 2^53 but within int64 is well-formed and unknown (404); beyond int64 it is a 400', () => {
    const calls: EntityModel = { typeName: 'CallHistory', setName: 'callhistory', key: ['Id'], from: 'calls', properties: [{ name: 'Id', column: 'id', type: 'Edm.Int64' }] };
    const key = (path: string) => typedKey(calls, (parseResourcePath(path) as any).key);
    expect(key('/callhistory(9007199254740991)')).toBe(9007199254740991);
    for (const big of ['9007199254740993', '9223372036854775807', '-9223372036854775808']) {
      let status: unknown;
      try {
        key(`/callhistory(${big})`);
      } catch (e) {
        status = (e as { status?: number }).status;
      }
      expect(status, big).toBe(404);
    }
    expect(fails(() => key('/callhistory(9223372036854775808)'))).toMatch(/must be an integer within/);
  });
  it('rejects missing, extra, duplicate and mistyped arguments', () => {
    const bind = (path: string) => bindArguments(fn, (parseResourcePath(path) as any).operation);
    expect(fails(() => bind("/groups(1)/Controller.AssignOnCall(surveyId='p1')"))).toMatch(/Missing parameter 'interviewId'/);
    expect(fails(() => bind("/groups(1)/Controller.AssignOnCall(surveyId='p1',interviewId=1,x=2)"))).toMatch(/Unknown parameter 'x'/);
    expect(fails(() => bind("/groups(1)/Controller.AssignOnCall(surveyId='p1',surveyId='p2',interviewId=1)"))).toMatch(/given twice/);
    expect(fails(() => bind("/groups(1)/Controller.AssignOnCall(surveyId=5,interviewId=1)"))).toMatch(/string in single quotes/);
    expect(fails(() => bind("/groups(1)/Controller.AssignOnCall(surveyId='p',interviewId=99999999999)"))).toMatch(/int32/);
    expect(fails(() => parseResourcePath("/groups(1)/Controller.X(a='b"))).toMatch(/Unterminated string literal in the resource path at position 26/);
  });
});
