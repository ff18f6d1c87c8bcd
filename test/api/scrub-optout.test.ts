import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// docs/optout-api.md#scrubs: POST /optout/scrubs against the company list and a project's list.
let t: TestServer;
let company: number;
let project: number;
beforeAll(async () => {
  t = await startTestServer();
  company = (await t.json('POST', '/optout/lists', { body: {} })).body.id;
  project = (await t.json('POST', '/optout/lists', { body: { projectId: 'p77' } })).body.id;
  await t.json('POST', `/optout/lists/${company}/emails`, { body: { emailAddress: 'ann@example.com' } });
  await t.json('POST', `/optout/lists/${company}/domains`, { body: { domain: 'blocked.org' } });
  await t.json('POST', `/optout/lists/${project}/emails`, { body: { emailAddress: 'bob@example.com' } });
});
afterAll(() => t.close());

function form(content: BlobPart, name: string, fields: Record<string, string> = {}): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  fd.append('file', new Blob([content]), name);
  return fd;
}

async function scrub(content: string, fields: Record<string, string> = {}, key?: string) {
  const r = await t.json('POST', '/optout/scrubs', { raw: form(content, 'mail.csv', fields), ...(key ? { key } : {}) });
  if (r.status !== 202) return { status: r.status, body: r.body };
  const path = new URL(r.headers.get('location')!).pathname;
  for (let i = 0; i < 200; i++) {
    const job = (await t.json('GET', path, key ? { key } : {})).body;
    if (job.State !== 'running') return { status: r.status, body: r.body, job, path };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('scrub did not finish');
}

const LIST = 'Name,E-mail\nAnn,ANN@example.com\nBob,bob@example.com\nCid,cid@mail.blocked.org\nDee,not an address\nEve,eve@example.com\n';

describe('POST /optout/scrubs', () => {
  it('the company list alone: e-mail and (sub)domain matches removed, invalid addresses counted apart', async () => {
    const { status, job, path } = await scrub(LIST);
    expect(status).toBe(202);
    expect(path).toBe(`/optout/scrubs/${job.Id}`);
    expect(job).toMatchObject({ State: 'done', Rows: 5, Kept: 2, Removed: 2, Invalid: 1 });
    const kept = await (await t.request('GET', `${path}/kept`)).text();
    expect(kept).toBe('Name,E-mail\r\nBob,bob@example.com\r\nEve,eve@example.com\r\n');
    const removed = (await (await t.request('GET', `${path}/removed`)).text()).replace(/^\uFEFF/, '').split('\r\n');
    expect(removed[0]).toBe('Name,E-mail,Reason,MatchedId,MatchedList,Normalized');
    expect(removed[1]).toMatch(new RegExp(`^Ann,ANN@example.com,email,\\d+,${company},ann@example.com$`));
    expect(removed[2]).toMatch(new RegExp(`^Cid,cid@mail.blocked.org,domain,\\d+,${company},cid@mail.blocked.org$`));
    expect(removed[3]).toBe('Dee,not an address,invalid,,,');
  });

  it("with projectId, that project's list too; the project administrator may scrub it, not the company list", async () => {
    const { job } = await scrub(LIST, { projectId: 'p77' });
    expect(job).toMatchObject({ Kept: 1, Removed: 3, Invalid: 1 });
    const mailer = (await t.json('POST', '/admin/keys', { body: { name: 'mailer', permissions: ['optout_administrate'], projects: ['p77'] } })).body.key;
    expect((await scrub(LIST, {}, mailer)).status).toBe(403);
    expect((await scrub(LIST, { projectId: 'p78' }, mailer)).status).toBe(403);
    const own = await scrub(LIST, { projectId: 'p77' }, mailer);
    expect(own.job).toMatchObject({ State: 'done', Removed: 3 });
    const catiKey = (await t.json('POST', '/admin/keys', { body: { name: 'dialer', permissions: ['cati_administrate'] } })).body.key;
    expect((await t.json('GET', own.path!, { key: catiKey })).status).toBe(403);
    expect((await scrub(LIST, { projectId: 'x1' })).status).toBe(400);
  });

  it('the column by name; no column that matches → 400', async () => {
    expect((await scrub('a,b\nx,ann@example.com\n', { column: 'b' })).job).toMatchObject({ Rows: 1, Removed: 1 });
    const r = await scrub('a,b\nx,y\n', { column: 'mail' });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/No column named 'mail'/);
  });
});
