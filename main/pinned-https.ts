/**
 * HTTPS to another CATI Supervisor with its certificate pinned by SHA-256 fingerprint (client mode, docs/desktop.md#desktop),
 * the way SSH pins host keys: a self-signed certificate is fine, a different one is refused. The check runs when
 * the TLS handshake completes and before the request is attached to the socket, so not one byte of a request (and
 * never the API key) reaches a server whose certificate does not match.
 */
import { Agent, request as httpsRequest } from 'node:https';
import { request as httpRequest, type ClientRequestArgs, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { connect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';

/** The server presented another certificate than the pinned one. */
export class CertificateMismatchError extends Error {
  override name = 'CertificateMismatchError';
  readonly code = 'CERT_PIN_MISMATCH';
  constructor(
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`The server's certificate changed: it presents ${actual}, but ${expected} was pinned on the first connection`);
  }
}

/** SHA-256 fingerprint (`AB:CD:…`) of the certificate a TLS socket's peer presented, or null. */
export function peerFingerprint(socket: TLSSocket): string | null {
  return socket.getPeerCertificate()?.fingerprint256 || null;
}

/**
 * An https.Agent that only hands out sockets whose peer certificate has the fingerprint `pin` (keep-alive, no TLS
 * session reuse, so every new socket shows its certificate). With `pin` null it pins nothing and reports the
 * fingerprint it saw through `seen` (first contact: no key is sent on such a connection).
 */
export class PinnedAgent extends Agent {
  constructor(
    readonly pin: string | null,
    private readonly seen: (fingerprint: string | null) => void = () => {},
  ) {
    super({ keepAlive: true, maxCachedSessions: 0 });
  }

  override createConnection(options: ClientRequestArgs, callback?: (err: Error | null, stream: Duplex) => void): Duplex | null | undefined {
    const socket = connect({ ...(options as ConnectionOptions), rejectUnauthorized: false });
    const fail = (err: Error) => {
      socket.destroy();
      callback?.(err, socket); // the agent ignores the socket when there is an error
    };
    socket.once('error', fail);
    socket.once('secureConnect', () => {
      socket.off('error', fail);
      const actual = peerFingerprint(socket);
      this.seen(actual);
      if (this.pin !== null && actual !== this.pin) return fail(new CertificateMismatchError(this.pin, actual ?? 'no certificate'));
      callback?.(null, socket);
    });
    return undefined; // handed over through the callback once checked
  }
}

export interface PinnedRequest {
  method?: string;
  headers?: OutgoingHttpHeaders;
  /** For https URLs: the agent that checks the certificate. */
  agent?: PinnedAgent;
  timeoutMs?: number;
}

/** Starts a request to `url` (http or https through `agent`) and answers the response; the caller writes/ends `req`. */
export function openRequest(url: URL, options: PinnedRequest = {}) {
  const make = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const req = make(url, {
    method: options.method ?? 'GET',
    headers: options.headers,
    agent: url.protocol === 'https:' ? (options.agent ?? new PinnedAgent(null)) : undefined,
    timeout: options.timeoutMs,
  });
  if (options.timeoutMs) req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer within ${options.timeoutMs! / 1000} s`), { code: 'ETIMEDOUT' })));
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  return { req, response };
}

/** A small GET (or a request with a small `body`) whose whole answer is read (JSON probes); answers status and text. */
export async function getText(url: URL, options: PinnedRequest & { body?: string } = {}): Promise<{ status: number; text: string }> {
  const { req, response } = openRequest(url, { timeoutMs: 10_000, ...options });
  req.end(options.body);
  const res = await response;
  let text = '';
  res.setEncoding('utf8');
  for await (const chunk of res) {
    text += chunk as string;
    if (text.length > 1_000_000) break;
  }
  return { status: res.statusCode ?? 0, text };
}
