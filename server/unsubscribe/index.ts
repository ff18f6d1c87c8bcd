import { runAs, UNSUBSCRIBE_PAGE_ACTOR } from '../audit/audit-log.ts';
import { Router, type ErrorRequestHandler, type Request, type Response } from 'express';
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { AppContext } from '../context.ts';
import { isDatabaseError } from '../db/database-error.ts';
import { DatabaseUnavailableError } from '../db/store.ts';
import { addEmailEntry } from '../optout/entries.ts';
import { findList } from '../optout/lists.ts';
import { openKeyCodec, type UnsubscribePayload } from './key-codec.ts';
import { maskAddress } from './mask-address.ts';
import { cachedPageSettings, DEFAULT_PAGE_SETTINGS, readPageSettings, type PageSettings } from './page-settings.ts';
import { confirmPage, defaultPage, errorPage, notFoundPage, resultPage, sendPage, tooManyRequestsPage } from './pages.ts';
import { clientBucket, FixedWindowCounter, type HitResult } from './rate-limit.ts';

/**
 * RFC 9745 `Deprecation` on the deprecated `/unsubscribe/{encryptedParameter}` paths: deprecated since
 * 2025-01-01T00:00:00Z (a date in the past: they are deprecated now; no `Sunset` is announced).
 */
export const DEPRECATION_HEADER = '@1735689600';

type Method = 'GET' | 'POST';

/** The unsubscribe pages: their router, and the default page alone for a caller that skips Express to serve it. */
export interface UnsubscribePages {
  router: Router;
  /**
   * `GET /unsubscribe` (no key) answered from the page cached per settings version, counted under
   * `clientAddress` by the same limiter as the router's; a failure gets the router's error page. It answers
   * asynchronously (the settings are checked through the store) and never rejects.
   */
  serveDefault(clientAddress: string | undefined, res: ServerResponse): void;
}

/**
 * Public unsubscribe pages under /unsubscribe (no API key; CONTRACT §6):
 * GET shows (default page without a key, confirm page with one), POST unsubscribes (also RFC 8058
 * one-click), every bad key gets the same 404 page, and clients that call too often get a 429 page.
 * One set of rate-limit counters serves the router and `serveDefault`.
 */
export function unsubscribePages(ctx: AppContext): UnsubscribePages {
  const codec = openKeyCodec(ctx.config.dataDir);
  const { rateLimits } = ctx.config;
  const perAddress = new FixedWindowCounter(rateLimits.pages);
  const perAddressInvalid = new FixedWindowCounter(rateLimits.invalidKeys);
  const perKeyPosts = new FixedWindowCounter(rateLimits.keyPosts);

  /** Counts the request; the first limit exceeded (or undefined when within every limit). */
  function limit(req: Request | string | undefined, method: Method, payload: UnsubscribePayload | null, invalidKey: boolean): HitResult | undefined {
    // A POST with a valid key is counted per key only: a mailbox provider's many one-click POSTs from
    // few addresses must never be refused for the address.
    if (method === 'POST' && payload) {
      const r = perKeyPosts.hit(keyId(payload));
      return r.allowed ? undefined : r;
    }
    const client = clientBucket(typeof req === 'string' || req === undefined ? req : req.ip);
    // Both counters count (invalid keys count toward both limits); the longer wait is the one shown.
    const wait = Math.max(perAddress.refusal(client), invalidKey ? perAddressInvalid.refusal(client) : 0);
    return wait === 0 ? undefined : { allowed: false, retryAfterSeconds: wait };
  }

  // The rate limiter decides before any database read; a refusal shows the settings as last read (one read
  // at most, for the very first request), so a flood of refused requests never reaches the database.
  let lastSettings: PageSettings | undefined;
  const readSettings = cachedPageSettings(ctx.store);
  const currentSettings = async () => (lastSettings = await readSettings());
  // The default page, rendered once per settings version.
  let defaultFor: PageSettings | undefined;
  let defaultHtml = '';
  const defaultPageOf = (settings: PageSettings) => {
    if (settings !== defaultFor) [defaultFor, defaultHtml] = [settings, defaultPage(settings)];
    return defaultHtml;
  };
  async function refuse(res: ServerResponse, refused: HitResult, headers: Record<string, string> = {}) {
    const page = tooManyRequestsPage(lastSettings ?? (await currentSettings()), refused.retryAfterSeconds);
    sendPage(res, 429, page, { ...headers, 'Retry-After': String(refused.retryAfterSeconds) });
  }

  /** The default page, the hot one: no key to decode, no extra header. */
  function serveDefault(clientAddress: string | undefined, res: ServerResponse): void {
    serveDefaultAsync(clientAddress, res).then(undefined, (err: unknown) => failPage(ctx, err, 'GET', res));
  }

  async function serveDefaultAsync(clientAddress: string | undefined, res: ServerResponse): Promise<void> {
    const refused = limit(clientAddress, 'GET', null, false);
    return refused ? refuse(res, refused) : sendPage(res, 200, defaultPageOf(await currentSettings()));
  }

  async function handle(req: Request, res: Response, method: Method, rawKey: unknown, deprecated: boolean) {
    if (method === 'GET' && !deprecated && rawKey === undefined) return serveDefaultAsync(req.ip, res);
    const hasKey = typeof rawKey === 'string' ? rawKey !== '' : rawKey !== undefined;
    const payload = hasKey && typeof rawKey === 'string' ? codec.decode(rawKey) : null;
    const invalidKey = (hasKey || method === 'POST') && !payload;
    const headers: Record<string, string> = {};
    if (deprecated) {
      headers.Deprecation = DEPRECATION_HEADER;
      if (payload) headers.Link = `</unsubscribe?key=${rawKey as string}>; rel="successor-version"`;
    }
    const refused = limit(req, method, payload, invalidKey);
    if (refused) return refuse(res, refused, headers);
    const settings = await currentSettings();
    if (!hasKey && method === 'GET') return sendPage(res, 200, defaultPageOf(settings), headers);
    const list = payload && (await findList(ctx.store, payload.listId));
    if (!payload || !list) return sendPage(res, 404, notFoundPage(settings), headers);

    const masked = maskAddress(payload.emailAddress);
    if (method === 'GET') return sendPage(res, 200, confirmPage(settings, masked, rawKey as string), headers);
    // The list may be deleted between the lookup and the insert: check again inside the transaction.
    // Audited as the unsubscribe page (CONTRACT §10), whoever follows the link.
    const added = await runAs(UNSUBSCRIBE_PAGE_ACTOR, () =>
      ctx.store.transaction(async (tx) => {
        if (!(await findList(tx, payload.listId))) return false;
        await addEmailEntry(ctx.store, payload.listId, payload.emailAddress, payload.projectId); // a savepoint in this transaction
        return true;
      }),
    );
    if (!added) return sendPage(res, 404, notFoundPage(settings), headers);
    sendPage(res, 200, resultPage(settings, masked), headers);
  }

  const router = Router();
  // The POST body (an RFC 8058 `List-Unsubscribe=One-Click` form, or the confirm form's empty one) is
  // not needed: the key alone says what to do, and no cookie or session is ever involved.
  router.get('/', (req, res) => handle(req, res, 'GET', req.query.key, false));
  router.post('/', (req, res) => handle(req, res, 'POST', req.query.key, false));
  router.get('/:encryptedParameter', (req, res) => handle(req, res, 'GET', req.params.encryptedParameter, true));
  router.post('/:encryptedParameter', (req, res) => handle(req, res, 'POST', req.params.encryptedParameter, true));
  // Anything else below /unsubscribe: the same 404 page, counted like a bad key.
  router.use(async (req, res) => {
    const refused = limit(req, 'GET', null, true);
    if (refused) return refuse(res, refused);
    sendPage(res, 404, notFoundPage(await currentSettings()));
  });
  router.use(((err, req, res, _next) => failPage(ctx, err, req.method, res)) as ErrorRequestHandler);
  return { router, serveDefault };
}

/** The id a valid key is counted under: its list and address (every key for them shares one counter). */
function keyId(payload: UnsubscribePayload): string {
  return createHash('sha256').update(`${payload.listId}\n${payload.emailAddress}`).digest('base64url').slice(0, 22);
}

/**
 * Errors on the pages become an HTML page; the log names the path, never the key (it is in the URL).
 * Never rejects: a busy or unreachable database gets 503, anything else 500.
 */
async function failPage(ctx: AppContext, err: unknown, method: string, res: ServerResponse): Promise<void> {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  let settings: PageSettings = DEFAULT_PAGE_SETTINGS;
  try {
    settings = await readPageSettings(ctx.store);
  } catch {
    // The database itself failed: the defaults will do.
  }
  if (res.headersSent) return;
  if (isDatabaseError(err, 'busy') || err instanceof DatabaseUnavailableError) {
    sendPage(res, 503, errorPage(settings), { 'Retry-After': '5' });
    return;
  }
  console.error(`${method} /unsubscribe failed:`, (err as Error)?.message ?? err);
  sendPage(res, 500, errorPage(settings));
}
