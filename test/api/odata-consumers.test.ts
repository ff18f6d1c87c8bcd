import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.ts';

// Real consumers nobody here wrote, run on our $metadata (docs/cati-api.md#metadata): the OASIS TC's odata-csdl and
// odata-openapi, the OpenAPI schema validator, SAP's edmx-parser, and the generic @odata/client V4 client.
const require = createRequire(import.meta.url);
const { xml2json } = require('odata-csdl') as { xml2json(xml: string, options?: { messages?: unknown[]; strict?: boolean }): any };
const { csdl2openapi } = require('odata-openapi') as { csdl2openapi(csdl: unknown, options: Record<string, unknown>): any };
const { parse: parseEdmx } = require('@sap-ux/edmx-parser') as { parse(xml: string): any };
const { OData } = require('@odata/client') as { OData: any };

let t: TestServer;
let xml: string;
/** A key of one existing entity per set, for the OpenAPI paths' key placeholders. */
const keys: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestServer();
  const post = async (path: string, body: unknown) => {
    const r = await t.json('POST', path, { body });
    expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(201);
    return r.body;
  };
  keys.blacklist = String((await post('/cati/blacklist', { TelephoneNumber: '0201234567' })).Id);
  keys.groups = String((await post('/cati/groups', { Name: 'Consumers' })).GroupId);
  const interviewer = (await post('/cati/interviewerproperties', { Name: 'consumer.one', Password: 'pw-123456' })).InterviewerId;
  keys.interviewers = keys.interviewerproperties = String(interviewer);
  await post('/cati/surveys', { SurveyId: 'p9001', SurveyName: 'Consumers', Variables: [{ Name: 'Region', AvailableAsCatiFilter: true }] });
  keys.surveys = 'p9001'; // the template quotes string keys itself: '{SurveyId}'
  const at = new Date(Date.now() - 120_000).toISOString();
  keys.interviewersessionhistory = keys.floor = String(
    (await post('/cati/interviewersessionhistory', { InterviewerId: interviewer, CallCenterId: 1, LoginTime: at })).value[0],
  );
  keys.callhistory = String(
    (await post('/cati/callhistory', { Time: at, SurveyId: 'p9001', InterviewerId: interviewer, TelephoneNumber: '1', Duration: 5, WaitingTime: 1, CallCenterId: 1 })).value[0],
  );
  // A call older than a day: /callhistorywithvariables (no default window, docs/cati-api.md#callhistorywithvariables) answers it too.
  const daysAgo = new Date(Date.now() - 3 * 86_400_000).toISOString();
  await post('/cati/callhistory', { Time: daysAgo, SurveyId: 'p9001', InterviewId: 1, InterviewerId: interviewer, TelephoneNumber: '2', Duration: 5, WaitingTime: 1, CallCenterId: 1, Variables: { Region: 'North' } });
  keys.breakhistory = String(
    (await post('/cati/breakhistory', { Time: at, InterviewerId: interviewer, CallCenterId: 1, BreakTypeId: 3, BreakTypeName: 'Lunch', Duration: 30 })).value[0],
  );
  keys.breaktypes = '3';
  keys.callcenters = '1';
  keys.extendedstatuses = String((await t.json('GET', '/cati/extendedstatuses?$top=1')).body.value[0].Code);
  xml = await (await t.request('GET', '/cati/$metadata')).text();
});
afterAll(() => t.close());

/** Arguments of the functions declared in $metadata, by parameter name. */
const ARGS: Record<string, string> = { callCenterId: '1', surveyId: "'p9001'", interviewId: '1', telephoneNumber: "'0201234567'", text: "'020'" };

describe('OASIS odata-csdl: CSDL XML → CSDL JSON', () => {
  it('converts $metadata without a single message, in strict mode too', () => {
    const messages: unknown[] = [];
    const csdl = xml2json(xml, { messages });
    expect(messages).toEqual([]);
    expect(() => xml2json(xml, { strict: true })).not.toThrow();
    const container = csdl.Controller.Container;
    expect(container.interviewerproperties.$IncludeInServiceDocument).toBe(false);
    expect(csdl.Controller.InterviewerProperties.Password).toMatchObject({ $Nullable: true });
    expect(csdl.Controller.TelephoneBlacklistItem.Created.$Precision).toBe(3);
    const annotations = csdl.Controller.$Annotations; // terms written with the aliases the references declare
    expect(annotations['Controller.Container']['@Capabilities.BatchSupported']).toBe(false);
    expect(annotations['Controller.Container/interviewers']['@Capabilities.InsertRestrictions']).toEqual({ Insertable: false });
    expect(annotations['Controller.TelephoneBlacklistItem/Created']['@Core.Computed']).toBe(true);
    const importAction = csdl.Controller.Import.find((overload: any) => overload.$IsBound);
    expect(importAction.$Parameter.map((p: any) => p.$Name)).toEqual(['bindingParameter', 'BlackListItems']);
  });
});

describe('OASIS odata-openapi: OpenAPI from $metadata', () => {
  let openapi: any;
  beforeAll(() => {
    const messages: unknown[] = [];
    openapi = csdl2openapi(xml2json(xml), { messages, scheme: 'http', host: new URL(t.url).host, basePath: '/cati', openapiVersion: '3.0.2' });
    expect(messages).toEqual([]);
  });

  it('generates an OpenAPI document that the schema validator accepts', async () => {
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const result = await new Validator().validate(openapi);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes no $batch, no $search or $expand, and nothing of the write-only set but its writes', () => {
    const paths = Object.keys(openapi.paths);
    expect(paths).not.toContain('/$batch');
    const described = JSON.stringify(openapi.paths); // components always define a $search parameter; no path may use it
    expect(described).not.toMatch(/\$search|parameters\/search"|\$expand/);
    expect(Object.keys(openapi.paths['/interviewerproperties'])).toEqual(['post']);
    expect(Object.keys(openapi.paths['/interviewerproperties({InterviewerId})']).filter((m) => m !== 'parameters').sort()).toEqual(['delete', 'patch']);
  });

  it('every operation it describes answers (GETs 200 with every documented option, writes never 404/405/415)', async () => {
    const outcomes: string[] = [];
    const methods = ['get', 'patch', 'post', 'delete'] as const; // deletes last; a stale If-Match keeps every entity
    for (const method of methods) {
      for (const [template, item] of Object.entries<any>(openapi.paths)) {
        const op = item[method];
        if (!op) continue;
        const set = template.slice(1).replace(/[(/].*$/, '');
        // Function parameters are camelCase (ARGS), key placeholders PascalCase (an existing entity of the set).
        const path = template.replace(/\{([^}]+)\}/g, (_whole: string, name: string) => {
          const value = ARGS[name] ?? keys[set];
          if (value === undefined) throw new Error(`No value for {${name}} in ${template}: add a fixture for ${set}`);
          return encodeURIComponent(value).replace(/%27/g, "'");
        });
        const query: string[] = [];
        for (const p of op.parameters ?? []) {
          const name = p.name ?? p.$ref?.split('/').pop();
          if (name === 'top' || name === '$top') query.push('$top=2');
          else if (name === 'skip' || name === '$skip') query.push('$skip=0');
          else if (name === 'count' || name === '$count') query.push('$count=true');
          else if (p.schema?.items?.enum?.length) query.push(`${encodeURIComponent(p.name)}=${encodeURIComponent(p.schema.items.enum[0])}`);
        }
        const url = `/cati${path}${query.length ? `?${query.join('&')}` : ''}`;
        const write = method !== 'get';
        const res = await t.request(method.toUpperCase(), url, {
          body: method === 'post' || method === 'patch' ? {} : undefined,
          headers: write && method !== 'post' ? { 'if-match': 'W/"stale"' } : {},
        });
        const text = await res.text();
        const ok = method === 'get' ? res.status === 200 : res.status < 500 && ![404, 405, 415].includes(res.status);
        if (!ok) outcomes.push(`${method.toUpperCase()} ${url} → ${res.status} ${text.slice(0, 200)}`);
      }
    }
    expect(outcomes).toEqual([]);
    const count = Object.values<any>(openapi.paths).reduce((n, item) => n + methods.filter((m) => item[m]).length, 0);
    expect(count).toBeGreaterThan(50);
  });
});

describe('/callhistorywithvariables as feeds read it (no default window, docs/cati-api.md#callhistorywithvariables)', () => {
  it('answers history older than a day with its Variables, numbered in time order', async () => {
    const r = await t.json('GET', '/cati/callhistorywithvariables?variables=Region&$count=true');
    expect(r.status).toBe(200);
    expect(r.body['@odata.count']).toBe(2);
    expect(r.body.value.map((x: any) => [x.NumberInOrder, x.TelephoneNumber])).toEqual([[0, '2'], [1, '1']]);
    expect(r.body.value[0].Variables).toEqual([{ Name: 'Region', Value: 'North' }]);
  });
});

describe("SAP's @sap-ux/edmx-parser", () => {
  it('parses $metadata: sets, types with Precision, the Import parameter, the vocabulary annotations', () => {
    const parsed = parseEdmx(xml);
    const schema = parsed.schema;
    expect(parsed.version).toBe('4.0');
    expect(schema.entitySets.map((s: any) => s.name)).toEqual(expect.arrayContaining(['blacklist', 'interviewerproperties', 'callhistory']));
    const item = schema.entityTypes.find((e: any) => e.name === 'TelephoneBlacklistItem');
    expect(item.entityProperties.find((p: any) => p.name === 'Created')).toMatchObject({ type: 'Edm.DateTimeOffset', precision: 3 });
    const importAction = schema.actions.find((a: any) => a.name === 'Import');
    expect(importAction.parameters.map((p: any) => [p.name, p.type])).toContainEqual(['BlackListItems', 'Collection(Controller.BlacklistImportItem)']);
    const targets = new Map<string, any[]>(schema.annotations.serviceFile.map((a: any) => [a.target, a.annotations]));
    expect(targets.get('Controller.Container/interviewerproperties')!.map((a: any) => a.term)).toContain('Org.OData.Capabilities.V1.ReadRestrictions');
    expect(targets.get('Controller.TelephoneBlacklistItem/Created')!.map((a: any) => a.term)).toEqual(['Org.OData.Core.V1.Computed']);
    expect(targets.get('Controller.Container/callhistory')!.map((a: any) => a.term)).toContain('Org.OData.Aggregation.V1.ApplySupported');
    expect(parsed.references.map((r: any) => r.namespace)).toEqual(['Org.OData.Core.V1', 'Org.OData.Capabilities.V1', 'Org.OData.Aggregation.V1']);
  });
});

describe('@odata/client, a generic V4 client: list, page, read, create, PATCH, delete with ETags', () => {
  it('does the whole round on /cati/blacklist', async () => {
    let ifMatch: string | undefined;
    const seen: { method: string; status: number }[] = [];
    const client = OData.New4({
      serviceEndpoint: `${t.url}/cati/`,
      commonHeaders: { Authorization: `Bearer ${TEST_API_KEY}`, Accept: 'application/json', 'Content-Type': 'application/json' },
      fetchProxy: async (url: string, init: RequestInit) => {
        const headers = { ...(init.headers as Record<string, string>), ...(ifMatch ? { 'If-Match': ifMatch } : {}) };
        const response = await fetch(url, { ...init, headers });
        seen.push({ method: init.method ?? 'GET', status: response.status });
        const text = await response.text();
        return { response, content: text && response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text };
      },
    });
    const set = client.getEntitySet('blacklist');

    const created = await set.create({ TelephoneNumber: '+31 (0)20 555 0198', Type: 'Equal', Comment: 'from @odata/client' });
    expect(created).toMatchObject({ TelephoneNumber: '31205550198', Comment: 'from @odata/client', '@odata.etag': 'W/"1"' });
    for (let i = 0; i < 4; i++) await set.create({ TelephoneNumber: `07000${i}`, Comment: 'page' });

    const filter = client.newFilter().property('Comment').eq('page');
    const page1 = await set.query(client.newOptions().filter(filter).top(2).skip(0).orderby('Id', 'asc'));
    const page2 = await set.query(client.newOptions().filter(filter).top(2).skip(2).orderby('Id', 'asc'));
    expect(page1.map((e: any) => e.TelephoneNumber)).toEqual(['070000', '070001']);
    expect(page2.map((e: any) => e.TelephoneNumber)).toEqual(['070002', '070003']);
    expect(await set.count(filter)).toBe(4);

    const read = await set.retrieve(created.Id);
    expect(read).toMatchObject({ Id: created.Id, '@odata.etag': 'W/"1"' });

    ifMatch = 'W/"7"';
    await expect(set.update(created.Id, { Comment: 'stale' })).rejects.toThrow();
    ifMatch = read['@odata.etag'];
    await set.update(created.Id, { Comment: 'patched' });
    ifMatch = undefined;
    const patched = await set.retrieve(created.Id);
    expect(patched).toMatchObject({ Comment: 'patched', TelephoneNumber: '31205550198', '@odata.etag': 'W/"2"' });

    ifMatch = 'W/"1"';
    await expect(set.delete(created.Id)).rejects.toThrow();
    ifMatch = patched['@odata.etag'];
    await set.delete(created.Id);
    ifMatch = undefined;
    await expect(set.retrieve(created.Id)).rejects.toThrow();
    expect(seen.filter((s) => s.method === 'PATCH').map((s) => s.status)).toEqual([412, 200]);
    expect(seen.filter((s) => s.method === 'DELETE').map((s) => s.status)).toEqual([412, 204]);
  });
});
