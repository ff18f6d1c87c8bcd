import { request as httpRequest, createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app.ts';
import { hostAllowList, hostOfHeader } from '../../server/http/host-rules.ts';
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.ts';

// docs/cati-api.md#hosts (421 for a foreign Host) and docs/cati-api.md#hosts (links on the public URL, else the allowed Host).

/** A request with an arbitrary Host header (fetch cannot set one). */
function withHost(url: string, path: string, host: string, options: { method?: string; body?: unknown } = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }>((resolve, reject) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = httpRequest(
      `${url}${path}`,
      {
        method: options.method ?? 'GET',
        headers: { host, authorization: `Bearer ${TEST_API_KEY}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            // not JSON (text/plain, HTML)
          }
          resolve({ status: res.statusCode!, headers: res.headers, body });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const lanAddress = () =>
  Object.values(networkInterfaces())
    .flat()
    .find((a) => a && !a.internal)?.address;

describe('the Host check (default config, bound to 127.0.0.1)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ allowedHosts: ['cati.example.org'] });
  });
  afterAll(() => t.close());
  const port = () => new URL(t.url).port;

  it.each(['localhost', '127.0.0.1', '[::1]', 'LOCALHOST', 'cati.example.org', 'app.localhost'])('Host %s:PORT is served', async (host) => {
    expect((await withHost(t.url, '/healthz', `${host}:${port()}`)).status).toBe(200);
  });

  it('the machine\'s host name and its interface addresses are served (how LAN clients come)', async () => {
    expect((await withHost(t.url, '/healthz', `${hostname()}:${port()}`)).status).toBe(200);
    const lan = lanAddress();
    if (lan) expect((await withHost(t.url, '/healthz', lan.includes(':') ? `[${lan}]` : lan)).status).toBe(200);
  });

  it.each(['evil.example', 'evil.example:80', '127.0.0.1.evil.example', 'cati.example.org.evil.example', 'a b'])(
    'Host "%s" → 421 (DNS rebinding)',
    async (host) => {
      const odata = await withHost(t.url, '/cati/blacklist', host);
      expect(odata.status).toBe(421);
      expect(odata.body.error.code).toBe('MisdirectedRequest');
      expect(odata.headers['odata-version']).toBe('4.0');
      expect((await withHost(t.url, '/unsubscribe', host)).status).toBe(421);
      expect((await withHost(t.url, '/healthz', host)).status).toBe(421);
    },
  );

  /** One raw request over a fresh socket; the whole answer once the server closes it (bounded: 5 s). */
  const raw = (request: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port()), '127.0.0.1', () => socket.write(request));
      let text = '';
      const timer = setTimeout(() => reject(new Error(`no complete answer to ${JSON.stringify(request)}: ${text}`)), 5000);
      socket.on('data', (c) => (text += c.toString('latin1')));
      socket.on('end', () => {
        clearTimeout(timer);
        resolve(text);
      });
      socket.on('error', reject);
    });

  it('HTTP/1.0 without Host is served (load-balancer health checks): GET /healthz, OPTIONS / and *', async () => {
    const health = await raw('GET /healthz HTTP/1.0\r\n\r\n');
    expect(health).toMatch(/^HTTP\/1\.[01] 200 /);
    expect(health).toContain('{"status":"ok"}');
    for (const target of ['/', '*']) {
      const options = await raw(`OPTIONS ${target} HTTP/1.0\r\n\r\n`); // HAProxy's default `option httpchk`
      expect(options, target).toMatch(/^HTTP\/1\.[01] 200 /);
      expect(options, target).toMatch(/\r\nAllow: [A-Z, ]*OPTIONS/i);
    }
    expect(await raw(`OPTIONS / HTTP/1.1\r\nHost: localhost:${port()}\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('HTTP/1.0 without Host still needs a key, and its links are built on the address it came in on', async () => {
    expect(await raw('GET /cati/ HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.[01] 401 /);
    const doc = await raw(`GET /cati/ HTTP/1.0\r\nAuthorization: Bearer ${TEST_API_KEY}\r\n\r\n`);
    expect(doc).toMatch(/^HTTP\/1\.[01] 200 /);
    expect(doc).toContain(`"@odata.context":"http://127.0.0.1:${port()}/cati/$metadata"`);
  });

  it('HTTP/1.1 without Host → 400 (RFC 9112 §3.2); a foreign Host under HTTP/1.0 → 421', async () => {
    expect(await raw('GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
    expect(await raw('OPTIONS / HTTP/1.1\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
    expect(await raw('GET /healthz HTTP/1.0\r\nHost: evil.example\r\n\r\n')).toMatch(/^HTTP\/1\.[01] 421 /);
  });

  it('a refused write changes nothing', async () => {
    const r = await withHost(t.url, '/cati/blacklist', 'evil.example', { method: 'POST', body: { TelephoneNumber: '123' } });
    expect(r.status).toBe(421);
    expect((await t.json('GET', '/cati/blacklist/$count')).status).toBe(200);
    expect(await (await t.request('GET', '/cati/blacklist/$count')).text()).toBe('0');
  });

  it('links follow the request\'s allowed Host: context, nextLink, Location, unsubscribe URLs', async () => {
    const host = `localhost:${port()}`;
    const doc = await withHost(t.url, '/cati/', host);
    expect(doc.body['@odata.context']).toBe(`http://${host}/cati/$metadata`);
    const created = await withHost(t.url, '/cati/blacklist', host, { method: 'POST', body: { TelephoneNumber: '4711' } });
    expect(created.headers.location).toBe(`http://${host}/cati/blacklist(${created.body.Id})`);
    for (let i = 0; i < 1001; i += 500) {
      const batch = Array.from({ length: 500 }, (_, j) => `9${String(i + j).padStart(6, '0')}`);
      await t.json('POST', '/cati/blacklist/Controller.Import', { body: { BlackListItems: batch } });
    }
    const page = await withHost(t.url, '/cati/blacklist', host);
    expect(page.body['@odata.nextLink']).toMatch(new RegExp(`^http://${host}/cati/blacklist\\?(\\$|%24)skiptoken=`));
    const list = await t.json('POST', '/optout/lists', { body: { projectId: 'p5' } });
    const link = await withHost(t.url, `/optout/lists/${list.body.id}/unsubscribe-links`, host, { method: 'POST', body: { emailAddress: 'a@example.com' } });
    expect(link.body.url).toMatch(new RegExp(`^http://${host}/unsubscribe\\?key=`));
  });
});

describe('--public-url: every link on it, its host allowed', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ publicUrl: 'https://cati.example.com/supervisor/' });
  });
  afterAll(() => t.close());

  it('links use the public URL whatever Host came in', async () => {
    const doc = await withHost(t.url, '/cati/', `127.0.0.1:${new URL(t.url).port}`);
    expect(doc.body['@odata.context']).toBe('https://cati.example.com/supervisor/cati/$metadata');
    const viaProxy = await withHost(t.url, '/cati/blacklist', 'cati.example.com', { method: 'POST', body: { TelephoneNumber: '5' } });
    expect(viaProxy.status).toBe(201);
    expect(viaProxy.headers.location).toBe(`https://cati.example.com/supervisor/cati/blacklist(${viaProxy.body.Id})`);
    const list = await t.json('POST', '/optout/lists', { body: { projectId: 'p6' } });
    const link = await t.json('POST', `/optout/lists/${list.body.id}/unsubscribe-links`, { body: { emailAddress: 'b@example.com' } });
    expect(link.body.url).toMatch(/^https:\/\/cati\.example\.com\/supervisor\/unsubscribe\?key=/);
    expect((await withHost(t.url, '/healthz', 'other.example.com')).status).toBe(421);
  });
});

describe('bound to 0.0.0.0 (LAN exposure)', () => {
  // The app is configured as bound to every interface, but this test listens on 127.0.0.1 only.
  let t: TestServer;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    t = await startTestServer();
    const app = createApp({ ...t.server.ctx, config: { ...t.server.ctx.config, host: '0.0.0.0' } });
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  it('clients reaching it by interface address or host name are served, with links on what they used', async () => {
    const lan = lanAddress();
    const hosts = [hostname(), ...(lan ? [lan.includes(':') ? `[${lan}]` : lan] : [])];
    for (const host of hosts) {
      const r = await withHost(url, '/cati/', `${host}:4100`);
      expect(r.status, host).toBe(200);
      expect(r.body['@odata.context']).toBe(`http://${host}:4100/cati/$metadata`);
    }
    expect((await withHost(url, '/cati/', 'evil.example:4100')).status).toBe(421);
  });
});

describe('host-rules units', () => {
  it('parses Host headers and matches names case-insensitively', () => {
    expect(hostOfHeader('Example.ORG.:8080')).toBe('example.org');
    expect(hostOfHeader('[FE80::1%eth0]:4100')).toBe('fe80::1');
    expect(hostOfHeader('user@evil.example')).toBeUndefined();
    expect(hostOfHeader('a/b')).toBeUndefined();
    const allowed = hostAllowList({ host: '192.0.2.10', publicUrl: 'https://Public.Example:8443/x', allowedHosts: ['Alias.Example'] });
    for (const h of ['192.0.2.10', 'public.example', 'alias.example', 'localhost', '::1']) expect(allowed(h), h).toBe(true);
    for (const h of ['192.0.2.11', 'example', 'alias.example.evil']) expect(allowed(h), h).toBe(false);
  });
});
