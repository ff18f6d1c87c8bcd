/**
 * Client mode's local end (docs/desktop.md#desktop): a loopback HTTP server that serves this app's renderer and passes every
 * API request on to another CATI Supervisor, streaming both ways. The window stays same-origin (no CORS), the
 * remote key never reaches the renderer (the proxy swaps the local session key for it), and the remote
 * certificate is pinned on every connection (pinned-https.ts). A remote that cannot be reached or presents another
 * certificate answers 502 with a message saying so; the proxy never falls back to any other server.
 */
import express from 'express';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CertificateMismatchError, openRequest, PinnedAgent } from './pinned-https.ts';

/** The API paths passed on; everything else is this app's renderer. */
const API_PATH = /^\/(cati|optout|admin|events|auth)(\/|$|\?)/;
/** Request headers never passed on (hop-by-hop, and the local session key). */
const DROPPED_REQUEST_HEADERS = new Set(['host', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'authorization', 'cookie', 'origin', 'referer']);
const DROPPED_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'trailer']);

export interface ClientProxyOptions {
  /** The remote server's base URL (`https://10.0.0.5:4100`). */
  remoteUrl: string;
  /** The API key for the remote server. */
  remoteKey: string;
  /** The pinned SHA-256 fingerprint (required for https). */
  fingerprint: string | null;
  /** The built renderer served to the window. */
  staticDir: string;
  /** Told about every failure to reach the remote (for the window's banner). */
  onRemoteError?: (message: string) => void;
}

/** The running proxy: the URL the window loads and the key the renderer sends to it. */
export interface ClientProxy {
  localUrl: string;
  sessionKey: string;
  remoteUrl: string;
  fingerprint: string | null;
  close(): Promise<void>;
}

/** A sentence for a failure to reach the remote server. */
export function describeRemoteError(err: unknown, remoteUrl: string): string {
  if (err instanceof CertificateMismatchError) return `${remoteUrl}: ${err.message}. Not connected: check with that server's administrator.`;
  const code = (err as { code?: string }).code;
  const why =
    code === 'ECONNREFUSED'
      ? 'nothing listens there'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'the name cannot be resolved'
        : code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH'
          ? 'no answer (network or firewall)'
          : (err as Error).message;
  return `The server ${remoteUrl} cannot be reached: ${why}.`;
}

function sameKey(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Starts the proxy on 127.0.0.1 (a free port). */
export async function startClientProxy(options: ClientProxyOptions): Promise<ClientProxy> {
  const remote = new URL(options.remoteUrl);
  if (remote.protocol === 'https:' && !options.fingerprint) throw new Error('An https server needs a pinned certificate fingerprint');
  const agent = remote.protocol === 'https:' ? new PinnedAgent(options.fingerprint) : undefined;
  const sessionKey = `proxy_${randomBytes(24).toString('base64url')}`;
  const statics = express.static(options.staticDir, { index: 'index.html' });

  const pass = (req: IncomingMessage, res: ServerResponse) => {
    const bearer = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || !sameKey(bearer, sessionKey)) {
      res.writeHead(401, { 'WWW-Authenticate': 'Bearer' }).end();
      return;
    }
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !DROPPED_REQUEST_HEADERS.has(name)) headers[name] = value;
    headers.authorization = `Bearer ${options.remoteKey}`;
    const target = new URL(req.url ?? '/', remote);
    const { req: out, response } = openRequest(target, { method: req.method, headers, agent });
    req.pipe(out);
    res.on('close', () => out.destroy());
    response.then(
      (answer) => {
        const passed: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !DROPPED_RESPONSE_HEADERS.has(name)) passed[name] = value;
        res.writeHead(answer.statusCode ?? 502, passed);
        answer.pipe(res);
      },
      (err: unknown) => {
        const message = describeRemoteError(err, options.remoteUrl);
        options.onRemoteError?.(message);
        if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'application/json' }).end(JSON.stringify({ message }));
        else res.destroy();
      },
    );
  };

  const server: Server = createServer((req, res) => {
    if (API_PATH.test(req.url ?? '')) return pass(req, res);
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { Allow: 'GET, HEAD' }).end();
    statics(req as express.Request, res as express.Response, () => res.writeHead(404).end());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    localUrl: `http://127.0.0.1:${port}`,
    sessionKey,
    remoteUrl: options.remoteUrl,
    fingerprint: options.fingerprint,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent?.destroy();
      }),
  };
}
