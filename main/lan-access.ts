import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import type { LanAccess, LanUrl } from './bridge-api.ts';

/** What LAN access needs to know about the running server. */
export interface ServedAt {
  host: string;
  port: number;
  tls: { fingerprint: string; certFile: string } | null;
}

/**
 * The URLs LAN clients use, one per interface address (docs/desktop.md#desktop), with the certificate to pin; null while the
 * server listens on loopback only. Loopback and link-local IPv6 addresses (which need a zone) are left out.
 */
export function lanAccess(served: ServedAt, interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces()): LanAccess | null {
  if (served.host === '127.0.0.1') return null;
  const scheme = served.tls ? 'https' : 'http';
  const urls: LanUrl[] = [];
  for (const [interfaceName, infos] of Object.entries(interfaces)) {
    for (const info of infos ?? []) {
      if (info.internal || (info.family === 'IPv6' && /^fe80:/i.test(info.address))) continue;
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      urls.push({ interfaceName, address: info.address, family: info.family, url: `${scheme}://${host}:${served.port}` });
    }
  }
  urls.sort((a, b) => (a.family === b.family ? 0 : a.family === 'IPv4' ? -1 : 1));
  return { urls, https: Boolean(served.tls), fingerprint: served.tls?.fingerprint ?? null, certFile: served.tls?.certFile ?? null };
}
