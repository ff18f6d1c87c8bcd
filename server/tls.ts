/**
 * TLS files for serving HTTPS on the LAN (docs/deployment.md#serve, docs/desktop.md#desktop): the user's own certificate and key, checked to
 * belong together before any server is touched, or a self-signed certificate made on first use and kept in
 * the data dir (mode 0600). Clients pin it by its SHA-256 fingerprint.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';

/** A certificate and key that belong together, ready for `https.createServer`. */
export interface TlsPair {
  certFile: string;
  keyFile: string;
  cert: Buffer;
  key: Buffer;
  /** SHA-256 of the certificate, `AB:CD:…` (what clients pin). */
  fingerprint: string;
  validTo: string;
}

/** A TLS file problem, with a sentence that names the file and what is wrong. */
export class TlsFileError extends Error {
  override name = 'TlsFileError';
}

function read(file: string, what: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new TlsFileError(`Cannot read the ${what} ${file} (${(err as { code?: string }).code ?? (err as Error).message})`);
  }
}

/** Reads and checks a certificate + key pair: both parse, and the key is the certificate's; else TlsFileError. */
export function loadTlsPair(certFile: string, keyFile: string): TlsPair {
  const cert = read(certFile, 'certificate');
  const key = read(keyFile, 'private key');
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    throw new TlsFileError(`${certFile} is not a PEM or DER certificate`);
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new TlsFileError(`${keyFile} is not an unencrypted PEM private key`);
  }
  if (!x509.checkPrivateKey(privateKey)) {
    throw new TlsFileError(`The certificate ${certFile} does not belong to the private key ${keyFile}: choose the key the certificate was made for`);
  }
  return { certFile, keyFile, cert, key, fingerprint: x509.fingerprint256, validTo: new Date(x509.validTo).toISOString() };
}

/** Every address of this machine's network interfaces (IPv4 and IPv6, loopback included). */
export function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a): a is NonNullable<typeof a> => Boolean(a))
    .map((a) => a.address);
}

/** Where the self-signed certificate lives: `<data-dir>/tls/`. */
export const selfSignedFiles = (dataDir: string) => ({ certFile: join(dataDir, 'tls', 'self-signed.crt'), keyFile: join(dataDir, 'tls', 'self-signed.key') });

/** Validity of a generated certificate: 825 days, the longest a TLS server certificate may have on macOS. */
const VALID_DAYS = 825;
/** A self-signed certificate this close to its end is replaced (its fingerprint changes; Settings shows the new one). */
const RENEW_BEFORE_MS = 30 * 86_400_000;

/**
 * The self-signed certificate of this data dir, made with `selfsigned` on first use (EC P-256, SHA-256, 825 days;
 * names: this host, localhost and every interface address) and kept as files of mode 0600. Renewed when it ends
 * within 30 days or the files are unusable.
 */
export async function ensureSelfSigned(dataDir: string, now = new Date()): Promise<TlsPair> {
  const { certFile, keyFile } = selfSignedFiles(dataDir);
  if (existsSync(certFile) && existsSync(keyFile)) {
    try {
      const pair = loadTlsPair(certFile, keyFile);
      if (new Date(pair.validTo).getTime() - now.getTime() > RENEW_BEFORE_MS) return pair;
    } catch {
      // unusable files: make new ones below
    }
  }
  const { generate } = await import('selfsigned');
  const ips = [...new Set(['127.0.0.1', '::1', ...interfaceAddresses()])].filter((ip) => !ip.includes('%'));
  const names = [...new Set([hostname(), 'localhost'])];
  const pems = await generate([{ name: 'commonName', value: `CATI Supervisor on ${hostname()}` }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate: new Date(now.getTime() + VALID_DAYS * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [...names.map((value) => ({ type: 2 as const, value })), ...ips.map((ip) => ({ type: 7 as const, ip }))] },
    ],
  });
  mkdirSync(join(dataDir, 'tls'), { recursive: true, mode: 0o700 });
  for (const [file, text] of [
    [keyFile, pems.private],
    [certFile, pems.cert],
  ] as const) {
    writeFileSync(`${file}.tmp`, text, { mode: 0o600 });
    chmodSync(`${file}.tmp`, 0o600);
    renameSync(`${file}.tmp`, file);
  }
  return loadTlsPair(certFile, keyFile);
}
