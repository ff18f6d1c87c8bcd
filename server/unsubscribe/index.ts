import { runAs, UNSUBSCRIBE_PAGE_ACTOR } from '../audit/audit-log.ts';
import { Router, type ErrorRequestHandler, type Request, type Response } from 'express';
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { AppContext } from '../context.ts';
import { isDatabaseError } from '../db/database-error.ts';
import { DatabaseUnavailableError } from '../db/store.ts';
import { negotiateLanguage } from '../lib/accept-language.ts';
import type { Language } from '../lib/languages.ts';
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
 * Public unsubscribe pages under /unsubscribe (no API key; docs/unsubscribe.md#keys):
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
  // The default page, rendered once per settings version and language.
  let defaultFor: PageSettings | undefined;
  const defaultHtml = new Map<Language, string>();
  const defaultPageOf = (settings: PageSettings, language: Language) => {
    if (settings !== defaultFor) {
      defaultFor = settings;
      defaultHtml.clear();
    }
    let html = defaultHtml.get(language);
    if (html === undefined) defaultHtml.set(language, (html = defaultPage(settings, language)));
    return html;
  };
  async function refuse(res: ServerResponse, accept: string | undefined, refused: HitResult, headers: Record<string, string> = {}) {
    const settings = lastSettings ?? (await currentSettings());
    const language = pageLanguage(settings, accept);
    sendPage(res, 429, tooManyRequestsPage(settings, refused.retryAfterSeconds, language), language, { ...headers, 'Retry-After': String(refused.retryAfterSeconds) });
  }

  /** The default page, the hot one: no key to decode, no extra header. */
  function serveDefault(clientAddress: string | undefined, res: ServerResponse): void {
    serveDefaultAsync(clientAddress, res.req.headers['accept-language'], res).then(undefined, (err: unknown) => failPage(ctx, err, 'GET', res));
  }

  async function serveDefaultAsync(clientAddress: string | undefined, accept: string | undefined, res: ServerResponse): Promise<void> {
    const refused = limit(clientAddress, 'GET', null, false);
    if (refused) return refuse(res, accept, refused);
    const settings = await currentSettings();
    const language = pageLanguage(settings, accept);
    sendPage(res, 200, defaultPageOf(settings, language), language);
  }

  async function handle(req: Request, res: Response, method: Method, rawKey: unknown, deprecated: boolean) {
    const accept = req.headers['accept-language'];
    if (method === 'GET' && !deprecated && rawKey === undefined) return serveDefaultAsync(req.ip, accept, res);
    const hasKey = typeof rawKey === 'string' ? rawKey !== '' : rawKey !== undefined;
    const payload = hasKey && typeof rawKey === 'string' ? codec.decode(rawKey) : null;
    const invalidKey = (hasKey || method === 'POST') && !payload;
    const headers: Record<string, string> = {};
    if (deprecated) {
      headers.Deprecation = DEPRECATION_HEADER;
      if (payload) headers.Link = `</unsubscribe?key=${rawKey as string}>; rel="successor-version"`;
    }
    const refused = limit(req, method, payload, invalidKey);
    if (refused) return refuse(res, accept, refused, headers);
    const settings = await currentSettings();
    const requested = pageLanguage(settings, accept);
    if (!hasKey && method === 'GET') return sendPage(res, 200, defaultPageOf(settings, requested), requested, headers);
    const list = payload && (await findList(ctx.store, payload.listId));
    if (!payload || !list) return sendPage(res, 404, notFoundPage(settings, requested), requested, headers);

    // The list's own language first (docs/unsubscribe.md#languages): the confirm page, the one-click POST and the
    // result page then speak it whatever the client asks.
    const language = list.language ?? requested;
    const masked = maskAddress(payload.emailAddress);
    if (method === 'GET') return sendPage(res, 200, confirmPage(settings, masked, rawKey as string, language), language, headers);
    // The list may be deleted between the lookup and the insert: check again inside the transaction.
    // Audited as the unsubscribe page (docs/audit.md#audit), whoever follows the link.
    const added = await runAs(UNSUBSCRIBE_PAGE_ACTOR, () =>
      ctx.store.transaction(async (tx) => {
        if (!(await findList(tx, payload.listId))) return false;
        await addEmailEntry(ctx.store, payload.listId, payload.emailAddress, payload.projectId); // a savepoint in this transaction
        return true;
      }),
    );
    if (!added) return sendPage(res, 404, notFoundPage(settings, requested), requested, headers);
    sendPage(res, 200, resultPage(settings, masked, language), language, headers);
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
    const accept = req.headers['accept-language'];
    const refused = limit(req, 'GET', null, true);
    if (refused) return refuse(res, accept, refused);
    const settings = await currentSettings();
    const language = pageLanguage(settings, accept);
    sendPage(res, 404, notFoundPage(settings, language), language);
  });
  router.use(((err, req, res, _next) => failPage(ctx, err, req.method, res)) as ErrorRequestHandler);
  return { router, serveDefault };
}

/** The language of a page without a list of its own: the request's Accept-Language among ours, else the company's default. */
function pageLanguage(settings: PageSettings, accept: string | undefined): Language {
  return negotiateLanguage(accept) ?? settings.defaultLanguage;
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
  const language = pageLanguage(settings, res.req.headers['accept-language']);
  if (isDatabaseError(err, 'busy') || err instanceof DatabaseUnavailableError) {
    sendPage(res, 503, errorPage(settings, language), language, { 'Retry-After': '5' });
    return;
  }
  console.error(`${method} /unsubscribe failed:`, (err as Error)?.message ?? err);
  sendPage(res, 500, errorPage(settings, language), language);
}
