/**
 * Checks another CATI Supervisor before client mode switches to it (docs/desktop.md#desktop): the address is well-formed, an
 * https server's certificate is the pinned one (or, on the first connection, the user has compared and accepted its
 * fingerprint — no key is sent before that), a plain-HTTP server was accepted knowingly, it answers like a CATI
 * Supervisor, and it accepts the key. Any problem answers a sentence and changes nothing.
 */
import type { ConnectRequest, ConnectResult } from './bridge-api.ts';
import { describeRemoteError } from './client-proxy.ts';
import { getText, PinnedAgent } from './pinned-https.ts';

/** `https://host:port` from what the user typed (no path, query or credentials), or null. */
export function normaliseServerUrl(input: string): string | null {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return null;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || url.search || url.hash) return null;
  if (url.pathname !== '/' && url.pathname !== '') return null;
  return url.origin;
}

/** The outcome of a check: a refusal or confirmation question (as the bridge answers it), or the pin to use. */
export type RemoteCheck = { ok: true; url: string; fingerprint: string | null; key: string } | { ok: false; result: ConnectResult };

const refused = (message: string): RemoteCheck => ({ ok: false, result: { status: 'refused', message } });

/**
 * Checks `request` against the server's pinned fingerprint `pinned` (null: never connected) with `key`.
 * Nothing is sent with the key until the certificate is the pinned or accepted one.
 */
export async function checkRemoteServer(request: ConnectRequest, pinned: string | null, key: string): Promise<RemoteCheck> {
  // With a name and password, the key is the session key the sign-in answers.
  const url = normaliseServerUrl(request.url);
  if (!url) return refused('Enter the server’s address as https://HOST:PORT (as its Settings screen lists it).');
  const signingIn = Boolean(request.name && request.password);
  if (!key && !signingIn) return refused(`Enter your name and password, or an API key, for ${url}.`);
  let pin: string | null = null;
  if (url.startsWith('https:')) {
    if (pinned) pin = pinned;
    else {
      let seen: string | null = null;
      try {
        await getText(new URL('/healthz', url), { agent: new PinnedAgent(null, (fp) => (seen = fp)) });
      } catch (err) {
        return refused(describeRemoteError(err, url));
      }
      if (!seen) return refused(`${url} presented no certificate.`);
      if (request.acceptFingerprint !== seen) {
        return {
          ok: false,
          result: {
            status: 'confirm-certificate',
            fingerprint: seen,
            message:
              `First connection to ${url}. Its certificate's SHA-256 fingerprint is ${seen}. Compare it with the fingerprint ` +
              'shown in that server’s Settings (or printed by npm run serve) before you trust it; from now on only this certificate is accepted.',
          },
        };
      }
      pin = seen;
    }
  } else if (!request.acceptPlainHttp) {
    return {
      ok: false,
      result: {
        status: 'confirm-plain-http',
        message: `${url} is plain HTTP: the API key and every answer cross the network in clear text. Continue only on a network you trust.`,
      },
    };
  }
  const agent = pin ? new PinnedAgent(pin) : undefined;
  try {
    const health = await getText(new URL('/healthz', url), { agent });
    let ok = false;
    try {
      ok = health.status === 200 && (JSON.parse(health.text) as { status?: string }).status === 'ok';
    } catch {
      ok = false;
    }
    if (!ok) return refused(`${url} does not answer like a CATI Supervisor (GET /healthz gave ${health.status}).`);
    if (signingIn) {
      // Only now, with the certificate pinned or plain HTTP accepted, does the password leave this computer.
      const body = JSON.stringify({ Name: request.name, Password: request.password });
      const login = await getText(new URL('/auth/login', url), { agent, method: 'POST', body, headers: { 'Content-Type': 'application/json', Accept: 'application/json' } });
      if (login.status === 401) return refused(`${url} refused the sign-in: the name or password is wrong, or the account is locked.`);
      if (login.status === 429) return refused(`${url}: too many failed sign-ins for this name or from this computer; try again later.`);
      if (login.status !== 200) return refused(`${url} answered ${login.status} to the sign-in.`);
      key = (JSON.parse(login.text) as { Key: string }).Key;
    }
    const service = await getText(new URL('/cati/', url), { agent, headers: { Authorization: `Bearer ${key}`, Accept: 'application/json' } });
    if (service.status === 401) return refused(`${url} refused the API key (401): check it, or create one there in Settings → API keys.`);
    if (service.status === 403) return refused(`The key lacks the permission to read the CATI API on ${url} (403): use a key with company_administrate for every screen.`);
    if (service.status !== 200) return refused(`${url} answered ${service.status} to GET /cati/.`);
  } catch (err) {
    return refused(describeRemoteError(err, url));
  } finally {
    agent?.destroy();
  }
  return { ok: true, url, fingerprint: pin, key };
}
