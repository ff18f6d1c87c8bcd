import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPRECATION_HEADER } from '../../server/unsubscribe/index.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let projectList: number;
let companyList: number;

/** Asks the API for an unsubscribe link. */
async function link(listId: number, emailAddress: string, extra: Record<string, unknown> = {}) {
  const res = await t.json<{ key: string; url: string }>('POST', `/optout/lists/${listId}/unsubscribe-links`, { body: { emailAddress, ...extra } });
  expect(res.status).toBe(200);
  return res.body;
}

/** A page request without an API key, as a recipient's browser or mailbox provider sends it. */
async function page(method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) {
  const res = await fetch(t.url + path, { method, body: init.body, headers: init.headers, redirect: 'manual' });
  return { status: res.status, headers: res.headers, html: await res.text() };
}

/** The list's e-mail entries through the opt-out API, in id order. */
async function emailsOf(listId: number, server: TestServer = t) {
  const r = await server.json('GET', `/optout/lists/${listId}/emails?$orderBy=Id&$pageSize=1000`);
  expect(r.status).toBe(200);
  return (r.body.items as { id: number; emailAddress: string; unsubscribedFrom: string | null }[]).map(
    ({ id, emailAddress, unsubscribedFrom }) => ({ id, emailAddress, unsubscribedFrom }),
  );
}

/** Creates (or gets) a list through the opt-out API. */
async function createList(projectId: string | null, server: TestServer = t): Promise<number> {
  const r = await server.json('POST', '/optout/lists', { body: projectId === null ? {} : { projectId } });
  expect(r.status).toBe(200);
  return r.body.id as number;
}

/** Where a confirm page's form posts to: its action resolved against the page's path (as a browser does). */
function formTarget(html: string, pagePath: string): string {
  const action = /<form method="post" action="([^"]*)">/.exec(html)?.[1];
  expect(action).toBeDefined();
  const target = new URL(action!.replaceAll('&#38;', '&'), `http://host${pagePath}`);
  return target.pathname + target.search;
}

function expectPageHeaders(headers: Headers) {
  expect(headers.get('content-type')).toBe('text/html; charset=utf-8');
  const csp = headers.get('content-security-policy')!;
  for (const part of ["default-src 'none'", "style-src 'sha256-", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'"]) {
    expect(csp).toContain(part);
  }
  expect(csp).not.toContain('script-src');
  expect(headers.get('x-robots-tag')).toMatch(/noindex/);
  expect(headers.get('referrer-policy')).toBe('no-referrer');
  expect(headers.get('cache-control')).toBe('no-store');
  expect(headers.get('set-cookie')).toBeNull();
}

beforeAll(async () => {
  t = await startTestServer();
  projectList = await createList('p123');
  companyList = await createList(null);
});
afterAll(() => t.close());

describe('GET /unsubscribe without a key', () => {
  it('shows the default page as a self-contained, noindex, phone-friendly HTML page', async () => {
    const r = await page('GET', '/unsubscribe');
    expect(r.status).toBe(200);
    expectPageHeaders(r.headers);
    expect(r.html).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(r.html).toContain('<meta name="robots" content="noindex, nofollow">');
    expect(r.html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(r.html).toContain('use the unsubscribe link');
    expect(r.html).not.toMatch(/<script|<link|<img|src=|https?:\/\//);
  });
});

describe('unsubscribe-links, confirm page and POST', () => {
  it('builds a link on the server URL, confirms with a masked address and unsubscribes on POST', async () => {
    const projectList = await createList('p124'); // its own list: other tests add addresses to the shared one
    const { key, url } = await link(projectList, '  John.Doe@Example.COM ');
    expect(url).toBe(`${t.url}/unsubscribe?key=${key}`);

    const confirm = await page('GET', `/unsubscribe?key=${key}`);
    expect(confirm.status).toBe(200);
    expectPageHeaders(confirm.headers);
    expect(confirm.html).toContain('j•••@e•••.com');
    expect(confirm.html.toLowerCase()).not.toContain('john');
    expect(confirm.html.toLowerCase()).not.toContain('example');
    expect(confirm.html).toMatch(/<form method="post" action="\?key=[A-Za-z0-9_-]+">\s*<button type="submit">Unsubscribe<\/button>/);
    expect(await emailsOf(projectList)).toEqual([]);

    // The button posts to the form's action resolved against the page URL, as a browser does.
    const result = await page('POST', formTarget(confirm.html, `/unsubscribe?key=${key}`), {
      body: '',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(result.status).toBe(200);
    expectPageHeaders(result.headers);
    expect(result.html).toContain('You are unsubscribed');
    expect(await emailsOf(projectList)).toEqual([{ id: expect.any(Number), emailAddress: 'john.doe@example.com', unsubscribedFrom: 'p124' }]);
  });

  it('is harmless to repeat: one entry, same id', async () => {
    const { key } = await link(projectList, 'repeat@example.org');
    expect((await page('POST', `/unsubscribe?key=${key}`)).status).toBe(200);
    const before = (await emailsOf(projectList)).filter((e) => e.emailAddress === 'repeat@example.org');
    const again = await link(projectList, 'REPEAT@example.org');
    expect((await page('POST', `/unsubscribe?key=${again.key}`)).status).toBe(200);
    expect((await page('POST', `/unsubscribe?key=${key}`)).status).toBe(200);
    expect((await emailsOf(projectList)).filter((e) => e.emailAddress === 'repeat@example.org')).toEqual(before);
    expect(before).toHaveLength(1);
  });

  it('accepts an RFC 8058 one-click POST without cookies', async () => {
    const { url } = await link(projectList, 'oneclick@mail.example.net');
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect((await emailsOf(projectList)).map((e) => e.emailAddress)).toContain('oneclick@mail.example.net');
  });

  it('records the project a company-list link was made for as unsubscribedFrom', async () => {
    const withProject = await link(companyList, 'c1@example.com', { projectId: 'p777' });
    const without = await link(companyList, 'c2@example.com');
    await page('POST', `/unsubscribe?key=${withProject.key}`);
    await page('POST', `/unsubscribe?key=${without.key}`);
    expect(await emailsOf(companyList)).toEqual([
      { id: expect.any(Number), emailAddress: 'c1@example.com', unsubscribedFrom: 'p777' },
      { id: expect.any(Number), emailAddress: 'c2@example.com', unsubscribedFrom: null },
    ]);
  });

  it('answers the 404 page for a key whose list was deleted', async () => {
    const doomed = await createList('p999');
    const { key } = await link(doomed, 'gone@example.com');
    // The API has no list deletion; the desktop's database maintenance could remove one.
    await t.server.ctx.store.run('DELETE FROM optout_lists WHERE id = ?', [doomed]);
    expect((await page('GET', `/unsubscribe?key=${key}`)).status).toBe(404);
    expect((await page('POST', `/unsubscribe?key=${key}`)).status).toBe(404);
    expect(await t.server.ctx.store.value('SELECT COUNT(*) FROM optout_emails WHERE list_id = ?', [doomed])).toBe(0);
  });
});

describe('bad keys', () => {
  it('get the same generic 404 page whatever is wrong, and POST changes nothing', async () => {
    const { key } = await link(projectList, 'target@example.com');
    const other = await startTestServer();
    const foreignKey = await other.json('POST', `/optout/lists/${await createList('p123', other)}/unsubscribe-links`, {
      body: { emailAddress: 'target@example.com' },
    });
    await other.close();
    const tampered = key.slice(0, 10) + (key[10] === 'A' ? 'B' : 'A') + key.slice(11);
    const bad = [tampered, key.slice(0, -3), foreignKey.body.key as string, 'not-a-key', '%3Cscript%3E', `${key}&key=${key}`];
    const bodies = new Set<string>();
    for (const k of bad) {
      for (const method of ['GET', 'POST']) {
        const r = await page(method, `/unsubscribe?key=${k}`);
        expect(r.status, `${method} ${k}`).toBe(404);
        expectPageHeaders(r.headers);
        bodies.add(r.html);
      }
    }
    expect(bodies.size).toBe(1);
    expect([...bodies][0]).toContain('This unsubscribe link is not valid');
    expect((await emailsOf(projectList)).map((e) => e.emailAddress)).not.toContain('target@example.com');
  });

  it('POST /unsubscribe without a key answers the 404 page', async () => {
    const r = await page('POST', '/unsubscribe', { body: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(r.status).toBe(404);
    expectPageHeaders(r.headers);
    expect(r.html).toContain('This unsubscribe link is not valid');
  });

  it('any other path or method below /unsubscribe answers the 404 page', async () => {
    for (const [method, path] of [['GET', '/unsubscribe/a/b'], ['PUT', '/unsubscribe'], ['DELETE', '/unsubscribe/x']] as const) {
      const r = await page(method, path);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    }
  });
});

describe('deprecated /unsubscribe/{encryptedParameter}', () => {
  it('confirms and unsubscribes like the query form, with Deprecation and successor Link headers', async () => {
    const { key } = await link(projectList, 'legacy@example.com');
    const get = await page('GET', `/unsubscribe/${key}`);
    expect(get.status).toBe(200);
    expectPageHeaders(get.headers);
    expect(get.headers.get('deprecation')).toBe(DEPRECATION_HEADER);
    expect(get.headers.get('link')).toBe(`</unsubscribe?key=${key}>; rel="successor-version"`);
    expect(get.html).toContain('l•••@e•••.com');
    expect(formTarget(get.html, `/unsubscribe/${key}`)).toBe(`/unsubscribe/${key}?key=${key}`);

    const post = await page('POST', `/unsubscribe/${key}`, { body: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(post.status).toBe(200);
    expect(post.headers.get('deprecation')).toBe(DEPRECATION_HEADER);
    expect((await emailsOf(projectList)).map((e) => e.emailAddress)).toContain('legacy@example.com');
  });

  it('answers a bad parameter with the 404 page and the Deprecation header, without echoing it', async () => {
    for (const method of ['GET', 'POST']) {
      const r = await page(method, '/unsubscribe/bogus');
      expect(r.status).toBe(404);
      expect(r.headers.get('deprecation')).toBe(DEPRECATION_HEADER);
      expect(r.headers.get('link')).toBeNull();
      expect(r.html).not.toContain('bogus');
    }
  });
});

describe('page settings on the pages', () => {
  it('escapes a hostile company name, page texts and address', async () => {
    const evil = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'&';
    const put = await t.json('PUT', '/optout/settings', {
      body: { companyName: evil, defaultPageText: evil, confirmPageText: evil, resultPageText: evil },
    });
    expect(put.status).toBe(200);
    const { key } = await link(projectList, "&o'x@example.com");
    try {
      for (const r of [await page('GET', '/unsubscribe'), await page('GET', `/unsubscribe?key=${key}`), await page('POST', `/unsubscribe?key=${key}`)]) {
        expect(r.status).toBe(200);
        expect(r.html).not.toContain('<script');
        expect(r.html).not.toContain('<img');
        expect(r.html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;&#60;img src=x onerror=alert(2)&#62;&#34;&#39;&#38;');
      }
      expect((await page('GET', `/unsubscribe?key=${key}`)).html).toContain('&#38;•••@e•••.com');
    } finally {
      await t.json('PUT', '/optout/settings', { body: { companyName: null, defaultPageText: null, confirmPageText: null, resultPageText: null } });
    }
  });
});

describe('the installation secret', () => {
  it('is created 0600 in the data dir and keeps links valid across restarts', async () => {
    const first = await startTestServer();
    const dataDir = first.dataDir;
    let second: TestServer | undefined;
    try {
      expect(statSync(join(dataDir, 'unsubscribe.secret')).mode & 0o777).toBe(0o600);
      const listId = await createList('p5', first);
      const res = await first.json('POST', `/optout/lists/${listId}/unsubscribe-links`, { body: { emailAddress: 'keep@example.com' } });
      await first.server.close();
      second = await startTestServer({ dataDir });
      const r = await fetch(`${second.url}/unsubscribe?key=${res.body.key}`);
      expect(r.status).toBe(200);
      expect(await r.text()).toContain('k•••@e•••.com');
    } finally {
      await second?.close();
      await first.close();
    }
  });
});
