/**
 * The Host rules (docs/cati-api.md#hosts links, docs/cati-api.md#hosts allowed hosts). A request is served only when its `Host` names
 * this server: the bind address, a loopback name, the machine's host name or one of its interface
 * addresses, the public URL's host, or a name given with `--allowed-hosts`; anything else → 421 (a
 * DNS-rebinding defence for a server on a desktop). Links (@odata.context, nextLink, Location,
 * unsubscribe URLs) are then built on `--public-url` when set, else on that (allowed) Host.
 */
import type { NextFunction, Request, Response } from 'express';
import type { IncomingMessage } from 'node:http';
import { hostname, networkInterfaces } from 'node:os';
import { ApiError } from '../errors.ts';

const LOOPBACK = ['localhost', '127.0.0.1', '::1', '0:0:0:0:0:0:0:1'];

/** A host name or address as compared: lower case, no brackets, no trailing dot, no IPv6 zone. */
export function normaliseHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[')) h = h.slice(1, h.indexOf(']') < 0 ? undefined : h.indexOf(']'));
  return h.replace(/%.*$/, '').replace(/\.$/, '');
}

/** The host part of a `Host` header (`name:port`, `[v6]:port`, `v4`), normalised; undefined when malformed. */
export function hostOfHeader(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^(\[[0-9a-fA-F:.%A-Za-z-]+\]|[^\s:[\]/@]+)(?::\d{1,5})?$/.exec(header.trim());
  return m ? normaliseHost(m[1]!) : undefined;
}

/** What the host check needs from the configuration. */
export interface HostRulesConfig {
  /** The bind address (`--host`). */
  host: string;
  publicUrl: string | null;
  /** `--allowed-hosts`: further names or addresses clients use (e.g. a DNS alias). */
  allowedHosts: readonly string[];
}

/** The names known without asking the OS for its interfaces. */
function staticNames(config: HostRulesConfig): Set<string> {
  const names = new Set<string>([...LOOPBACK, normaliseHost(config.host), ...config.allowedHosts.map(normaliseHost)]);
  const machine = normaliseHost(hostname());
  if (machine) {
    names.add(machine);
    names.add(`${machine.split('.')[0]}.local`); // mDNS name on a LAN
    names.add(machine.split('.')[0]!);
  }
  if (config.publicUrl) {
    try {
      names.add(normaliseHost(new URL(config.publicUrl).hostname));
    } catch {
      // validated by the CLI; an unparsable URL simply adds no name
    }
  }
  return names;
}

function interfaceAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) out.add(normaliseHost(a.address));
  return out;
}

/** A predicate over Host names: static names at once, interface addresses re-read at most once a second on a miss. */
export function hostAllowList(config: HostRulesConfig): (host: string) => boolean {
  const names = staticNames(config);
  let addresses = interfaceAddresses();
  let readAt = Date.now();
  return (host) => {
    if (names.has(host) || addresses.has(host)) return true;
    if (host.endsWith('.localhost')) return true; // RFC 6761: always loopback
    if (Date.now() - readAt >= 1000) {
      addresses = interfaceAddresses(); // DHCP and Wi-Fi change addresses while the server runs
      readAt = Date.now();
      return addresses.has(host);
    }
    return false;
  };
}

/** A predicate over `Host` headers; the last header found allowed is trusted as is for a second (interface addresses may change). */
export function hostHeaderCheck(config: HostRulesConfig): (header: string | undefined) => boolean {
  const allowed = hostAllowList(config);
  let lastAllowed: string | undefined;
  let lastAllowedUntil = 0;
  return (header) => {
    if (header === lastAllowed && Date.now() < lastAllowedUntil) return true;
    const host = hostOfHeader(header);
    if (host === undefined || !allowed(host)) return false;
    lastAllowed = header;
    lastAllowedUntil = Date.now() + 1000;
    return true;
  };
}

/**
 * A request without any Host header: HTTP/1.0 allows that (load-balancer health checks such as HAProxy's
 * `OPTIONS / HTTP/1.0` send none), and it cannot be a DNS-rebinding attack — a browser always names the
 * host it resolved. HTTP/1.1 requires Host (RFC 9112 §3.2).
 */
function withoutHost(req: IncomingMessage): 'served' | 'refused' | undefined {
  if (req.headers.host !== undefined) return undefined;
  return req.httpVersionMajor === 1 && req.httpVersionMinor === 0 ? 'served' : 'refused';
}

/**
 * Express middleware: 421 for a request whose Host is malformed or not one of ours; a request without Host is
 * served under HTTP/1.0 and refused with 400 under HTTP/1.1 and later.
 */
export function allowedHostsCheck(config: HostRulesConfig, allowed = hostHeaderCheck(config)) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const header = req.headers.host;
    if (allowed(header)) return next();
    const missing = withoutHost(req);
    if (missing === 'served') return next();
    if (missing === 'refused') return next(new ApiError('BadRequest', `An HTTP/${req.httpVersion} request must have a Host header`));
    const shown = (header ?? '(none)').slice(0, 100).replace(/[^\x20-\x7e]/g, '?');
    next(
      new ApiError(
        'MisdirectedRequest',
        `This server does not answer for the host '${shown}'; use its address or add the name with --allowed-hosts`,
      ),
    );
  };
}

/** The host links are built on: the request's Host, else (HTTP/1.0 without Host) the address and port it came in on. */
function hostForLinks(req: IncomingMessage): string {
  if (req.headers.host) return req.headers.host;
  const address = req.socket.localAddress ?? '127.0.0.1';
  return `${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort ?? ''}`;
}

/**
 * The origin links are built on: `--public-url` (without a trailing slash) when set, else the request's
 * protocol and Host — which allowedHostsCheck has already verified.
 */
export function linkOrigin(req: Request, publicUrl: string | null): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  return `${req.protocol}://${hostForLinks(req)}`;
}

/** linkOrigin of a request Express has not seen (no proxy trusted: the protocol is the socket's). */
export function socketLinkOrigin(req: IncomingMessage, publicUrl: string | null): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  return `${(req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http'}://${hostForLinks(req)}`;
}
