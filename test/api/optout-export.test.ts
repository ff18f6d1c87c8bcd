import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addEmailEntry } from '../../server/optout/entries.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let seq = 5000;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

async function freshList(): Promise<number> {
  return (await t.json('POST', '/optout/lists', { body: { projectId: `p${seq++}` } })).body.id;
}

async function exportCsv(listId: number, kind: 'emails' | 'domains') {
  const res = await t.request('GET', `/optout/lists/${listId}/${kind}/export`);
  return { res, text: await res.text() };
}

function importCsv(listId: number, kind: 'emails' | 'domains', text: string) {
  const fd = new FormData();
  fd.append('file', new Blob([text]), `back.csv`);
  return t.json('POST', `/optout/lists/${listId}/${kind}/import`, { raw: fd });
}

const TRICKY = ['-minus@x.com', "'quote@x.com", "''two@x.com", '=sum@x.com', '+plus@x.com', '@@x.com', 'plain@bücher.de', "'-both@x.com"];
const VALID_TRICKY = TRICKY.filter((e) => e !== '@@x.com');

describe('GET …/emails/export', () => {
  it('answers a CSV attachment with the header, RFC 4180 lines and the formula guard', async () => {
    const list = await freshList();
    for (const e of VALID_TRICKY) expect((await t.json('POST', `/optout/lists/${list}/emails`, { body: { emailAddress: e } })).status).toBe(200);
    const { res, text } = await exportCsv(list, 'emails');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="optout-${list}-emails.csv"`);
    const lines = text.split('\r\n');
    expect(lines[0]).toBe('emailAddress,timestamp,unsubscribedFrom');
    expect(lines.at(-1)).toBe('');
    expect(lines.find((l) => l.startsWith("'-minus@x.com,"))).toMatch(/^'-minus@x\.com,[^,]+,$/);
    const cells = lines.slice(1, -1).map((l) => l.split(',')[0]);
    expect(cells).toEqual(expect.arrayContaining(["'-minus@x.com", "''quote@x.com", "'''two@x.com", "'=sum@x.com", "'+plus@x.com", 'plain@xn--bcher-kva.de']));
    for (const l of lines.slice(1, -1)) expect(l.split(',')[1]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('exports an empty list as just the header', async () => {
    const list = await freshList();
    expect((await exportCsv(list, 'emails')).text).toBe('emailAddress,timestamp,unsubscribedFrom\r\n');
    expect((await exportCsv(list, 'domains')).text).toBe('domain,timestamp\r\n');
  });

  it('exports the project an address unsubscribed from', async () => {
    const list = await freshList();
    await addEmailEntry(t.server.ctx.store, list, 'left@x.com', 'p42');
    const { text } = await exportCsv(list, 'emails');
    expect(text).toMatch(/^emailAddress,timestamp,unsubscribedFrom\r\nleft@x\.com,[^,]+,p42\r\n$/);
  });

  it('export → import into an empty list gives the same addresses, including - and \' starts and IDN', async () => {
    const from = await freshList();
    const many = Array.from({ length: 3000 }, (_, i) => `u${i}@d${i % 7}.example`);
    const fd = new FormData();
    fd.append('file', new Blob([[...many, ...VALID_TRICKY].join('\n')]), 'seed.txt');
    const seeded = await t.json('POST', `/optout/lists/${from}/emails/import`, { raw: fd });
    expect(seeded.body.newRows).toBe(many.length + VALID_TRICKY.length);
    const { text } = await exportCsv(from, 'emails');
    const rows = parse(text, { columns: true }) as { emailAddress: string }[];
    expect(rows).toHaveLength(many.length + VALID_TRICKY.length);

    const to = await freshList();
    const back = await importCsv(to, 'emails', text);
    expect(back.body).toEqual({ newRows: rows.length, duplicatedRows: 0, invalidRows: 0, Encoding: 'utf-8' });
    const again = parse((await exportCsv(to, 'emails')).text, { columns: true }) as { emailAddress: string }[];
    expect(again.map((r) => r.emailAddress).sort()).toEqual(rows.map((r) => r.emailAddress).sort());
    expect(again.map((r) => r.emailAddress)).toEqual(expect.arrayContaining(["'-minus@x.com", "''quote@x.com", 'plain@xn--bcher-kva.de']));
  });
});

describe('GET …/domains/export', () => {
  it('exports domains and round-trips them', async () => {
    const list = await freshList();
    for (const d of ['example.com', 'Bücher.de', 'a-b.example']) await t.json('POST', `/optout/lists/${list}/domains`, { body: { domain: d } });
    const { res, text } = await exportCsv(list, 'domains');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="optout-${list}-domains.csv"`);
    const lines = text.split('\r\n');
    expect(lines[0]).toBe('domain,timestamp');
    expect(lines.slice(1, -1).map((l) => l.split(',')[0]).sort()).toEqual(['a-b.example', 'example.com', 'xn--bcher-kva.de']);
    const to = await freshList();
    expect((await importCsv(to, 'domains', text)).body).toEqual({ newRows: 3, duplicatedRows: 0, invalidRows: 0, Encoding: 'utf-8' });
  });

  it('is 404 for an unknown list and 403 for a list outside the key’s projects', async () => {
    expect((await t.request('GET', '/optout/lists/987654/domains/export')).status).toBe(404);
    const list = await freshList();
    const key = (await t.server.ctx.keys.create('elsewhere', ['optout_administrate'], ['p1'])).key;
    expect((await t.request('GET', `/optout/lists/${list}/emails/export`, { key })).status).toBe(403);
  });
});
