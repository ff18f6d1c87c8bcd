import express, { type Express } from 'express';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { bindActor } from './audit/audit-log.ts';
import { auditRouter } from './audit/audit-router.ts';
import { keysRouter } from './auth/keys-router.ts';
import { loginRouter } from './auth/login-router.ts';
import { authenticate } from './auth/middleware.ts';
import { uiSessionsRouter, uiTokenRouter } from './auth/ui-session-router.ts';
import { usersRouter } from './auth/users-router.ts';
import { companySettingsRouter } from './cati/company-settings-router.ts';
import { catiService } from './cati/index.ts';
import { blacklistImportRouter } from './cati/blacklist-import-routes.ts';
import { catiScrubRouter } from './cati/scrub-routes.ts';
import type { AppContext } from './context.ts';
import { ApiError, errorMiddleware } from './errors.ts';
import { eventsRouter } from './events/events-router.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { allowedHostsCheck, hostHeaderCheck } from './http/host-rules.ts';
import { jsonBody } from './http/json-body.ts';
import { optionsProbe } from './http/options-probe.ts';
import { optoutRouter } from './optout/index.ts';
import { optoutScrubRouter } from './optout/scrub-routes.ts';
import { unsubscribePages, type UnsubscribePages } from './unsubscribe/index.ts';
import { unsubscribeLinksRouter } from './unsubscribe/links-router.ts';
import { settingsRouter } from './unsubscribe/settings-router.ts';

/**
 * The server's request listener: the Express app, with the two hot reads answered before Express when the
 * Host is ours and no proxy is trusted (the client address and protocol are then the socket's):
 * - `GET /unsubscribe`, the public default page (the one a flood hits); headers, body and rate limiting
 *   are those of the router;
 * - `GET /cati/{set}?…` on a generic collection (odata/service.ts `serveHotRead`), which hands anything else,
 *   errors included, to the app with nothing written.
 */
export function createRequestListener(ctx: AppContext): (req: IncomingMessage, res: ServerResponse) => void {
  const pages = unsubscribePages(ctx);
  const cati = catiService(ctx);
  const hostAllowed = hostHeaderCheck(ctx.config);
  const app = createApp(ctx, pages, hostAllowed, cati);
  if (ctx.config.trustProxy) return app;
  return (req, res) => {
    if (req.method !== 'GET' || !hostAllowed(req.headers.host)) app(req, res);
    else if (req.url === '/unsubscribe') pages.serveDefault(req.socket.remoteAddress, res);
    else if (req.url?.startsWith('/cati/')) void cati.serveHotRead(req, res).then((done) => done || app(req, res));
    else app(req, res);
  };
}

/** Builds the Express app: every router is mounted here, in one place. */
export function createApp(ctx: AppContext, pages: UnsubscribePages = unsubscribePages(ctx), hostAllowed = hostHeaderCheck(ctx.config), cati = catiService(ctx)): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  // One proxy hop: the address it appends to X-Forwarded-For, which a client cannot forge.
  if (ctx.config.trustProxy) app.set('trust proxy', 1);
  // docs/cati-api.md#hosts: a Host that is not this server's → 421, before anything else.
  app.use(allowedHostsCheck(ctx.config, hostAllowed));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use(optionsProbe); // `OPTIONS *` / `OPTIONS /`: load balancers' health checks

  // Public HTML pages: no key (docs/people.md#permissions).
  app.use('/unsubscribe', pages.router);

  // The two APIs: Bearer key on every route; each router parses JSON bodies only after its permission check (under /cati/ also Basic, for side-effect-free reads only).
  app.use('/cati', authenticate(ctx.keys, { basic: true }), bindActor, catiScrubRouter(ctx), blacklistImportRouter(ctx), cati.router); // /cati/scrubs and /cati/blacklist/imports (docs/cati-api.md) ahead of the OData dispatcher, which parses JSON after its permission check
  app.use('/optout/scrubs', authenticate(ctx.keys), bindActor, optoutScrubRouter(ctx)); // docs/optout-api.md#scrubs
  app.use('/optout', authenticate(ctx.keys), bindActor, settingsRouter(ctx), unsubscribeLinksRouter(ctx), optoutRouter(ctx));
  app.use('/admin/keys', authenticate(ctx.keys), bindActor, keysRouter(ctx)); // extension: key management (company_administrate)
  app.use('/admin/audit', authenticate(ctx.keys), auditRouter(ctx)); // docs/audit.md#audit: the audit log, read-only (company_administrate)
  app.use('/admin/settings', authenticate(ctx.keys), bindActor, companySettingsRouter(ctx)); // docs/cati-api.md#phone-region: company settings (PhoneRegion), company_administrate
  app.use('/admin/ui-sessions', authenticate(ctx.keys), bindActor, uiSessionsRouter(ctx)); // extension: UI sessions (company_administrate)
  app.use('/admin/users', authenticate(ctx.keys), bindActor, usersRouter(ctx)); // docs/audit.md#audit: user accounts (company_administrate)
  // The UI link's single-use token → session key (no key needed); sign-in with a name and password, sign-out, who am I (docs/audit.md#audit).
  app.use('/auth', jsonBody, uiTokenRouter(ctx), loginRouter(ctx));
  app.use('/events', eventsRouter(ctx, ctx.events)); // Server-Sent Events after commit (docs/events.md#events)
  app.use(['/cati', '/optout'], (req, _res, next) => {
    next(new ApiError('NotFound', `No resource at ${req.method} ${req.originalUrl.split('?')[0]}`));
  });

  // The renderer's static files (same UI in a browser when no Electron binary is available).
  const staticDir = ctx.config.staticDir;
  if (staticDir && existsSync(join(staticDir, 'index.html'))) {
    app.use(express.static(staticDir, { index: 'index.html', fallthrough: true }));
  }

  app.use((req, _res, next) => next(new ApiError('NotFound', `No resource at ${req.path}`)));
  app.use(errorMiddleware);
  return app;
}
