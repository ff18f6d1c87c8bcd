/**
 * Sign-in for people (docs/people.md#users): `POST /auth/login` `{Name, Password}` → a session key that follows the UI-session
 * rules (12 hours idle, revocable, digest only); `POST /auth/logout` ends the caller's session; `GET /auth/me`
 * describes the caller. Sign-ins, sign-outs and failed sign-ins are audited as entity `sessions`, never with the
 * password. Mounted at `/auth` behind `jsonBody`.
 */
import { Router, type Request, type Response } from 'express';
import { recordAudit, runAs, type Actor } from '../audit/audit-log.ts';
import type { AppContext } from '../context.ts';
import { ApiError, badRequest, conflict, unauthorized } from '../errors.ts';
import { parseLanguage, type Language } from '../lib/languages.ts';
import type { Principal } from './api-keys.ts';
import { loginRetryAfter, recordLoginFailure } from './login-throttle.ts';
import { authenticate } from './middleware.ts';
import { dummyHash, PASSWORD_MAX, verifyPassword } from './passwords.ts';
import { ROLE_GRANTS } from './roles.ts';
import { UI_SESSION_IDLE_MS } from './ui-sessions.ts';
import { nameKey, type UserRow } from './users.ts';
import { checkName } from './user-input.ts';

function noStore(_req: Request, res: Response, next: () => void) {
  res.setHeader('Cache-Control', 'no-store');
  next();
}

/** The one answer to every refused sign-in, whatever the reason (unknown name, wrong password, locked). */
const refused = () => unauthorized('The name or password is wrong, or the account is locked');

/** What `GET /auth/me` answers for a principal; `language` is the user's stored one (always null for a key or the UI link). */
export function describePrincipal(p: Principal, language: Language | null = null) {
  if (p.user) {
    const permissions = [...ROLE_GRANTS[p.user.role].permissions];
    return { Kind: 'user', Name: p.user.name, DisplayName: p.user.displayName, Role: p.user.role, Permissions: permissions, Language: language };
  }
  return { Kind: p.uiSessionId !== undefined ? 'ui-link' : 'key', Name: p.name, DisplayName: p.name, Role: null, Permissions: [...p.permissions], Language: null };
}

/** The `Language` of a `PATCH /auth/me` body (the only field it takes); 400 for anything else. */
function languagePatch(body: unknown): Language | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('PATCH /auth/me needs a JSON object such as {"Language": "nl"}');
  const unknown = Object.keys(body).filter((k) => k !== 'Language');
  if (unknown.length) throw badRequest(`Unknown field ${unknown.map((k) => `'${k}'`).join(', ')}: PATCH /auth/me takes only Language`);
  if (!('Language' in body)) throw badRequest('PATCH /auth/me needs Language ("en", "nl", "de" or null)');
  return parseLanguage((body as { Language: unknown }).Language, 'Language');
}

/** The `{Name, Password}` of a sign-in body (400 for anything else; the rules of names are not checked here). */
function credentials(body: unknown): { name: string; password: string } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('The body must be {"Name": "…", "Password": "…"}');
  const { Name: name, Password: password } = body as Record<string, unknown>;
  if (typeof name !== 'string' || name === '') throw badRequest("'Name' must be a non-empty string");
  if (typeof password !== 'string' || password === '') throw badRequest("'Password' must be a non-empty string");
  if (password.length > PASSWORD_MAX * 2) throw badRequest(`'Password' must be at most ${PASSWORD_MAX} characters`);
  return { name: name.slice(0, 200), password };
}

/** Who a refused sign-in names in the audit log: the name tried, when it could be a user's name. */
function triedName(name: string): string {
  try {
    return checkName(name);
  } catch {
    return '(not a valid name)';
  }
}

export function loginRouter(ctx: AppContext): Router {
  const router = Router();
  const { users, ui } = ctx.keys;
  router.use(noStore);

  router.post('/login', async (req, res) => {
    const { name, password } = credentials(req.body);
    const key = nameKey(name);
    const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const retryAfter = await loginRetryAfter(ctx.store, key, address);
    if (retryAfter !== null) {
      throw new ApiError('TooManyRequests', 'Too many failed sign-ins: try again later', undefined, { 'Retry-After': String(retryAfter) });
    }
    const user: UserRow | undefined = await users.byName(name);
    // The same work whether or not the name exists: an unknown name is checked against a dummy hash.
    const matches = await verifyPassword(password, user?.password_hash ?? (await dummyHash()));
    const now = Date.now();
    if (!user || !matches || user.locked !== 0) {
      const reason = !user ? 'unknown name' : !matches ? 'wrong password' : 'locked';
      await ctx.store.transaction(async (tx) => {
        await recordLoginFailure(tx, key, address, now);
        const actor: Actor = { keyId: null, name: user?.name ?? triedName(name), userId: null };
        await recordAudit(tx, { action: 'login failed', entity: 'sessions', entityId: null, changes: { Address: address, Reason: reason } }, now, actor);
      });
      throw refused();
    }
    const session = await ctx.store.transaction(async (tx) => {
      const opened = await ui.open(tx, user.id, now);
      await users.stampLogin(tx, user.id, now);
      const actor: Actor = { keyId: null, name: user.name, userId: user.id };
      await recordAudit(tx, { action: 'login', entity: 'sessions', entityId: opened.id, changes: { Kind: 'user', Address: address } }, now, actor);
      return opened;
    });
    res.json({ Key: session.key, ExpiresAt: new Date(now + UI_SESSION_IDLE_MS).toISOString(), User: await users.get(user.id) });
  });

  router.post('/logout', authenticate(ctx.keys), async (req, res) => {
    const p = req.principal!;
    const id = p.uiSessionId;
    if (id === undefined) throw badRequest('This key is not a session: revoke an API key in /admin/keys instead');
    await ctx.store.transaction(async (tx) => {
      if (!(await ui.revoke(id, Date.now(), tx))) return;
      const actor: Actor = { keyId: null, name: p.name, userId: p.user?.id ?? null };
      await recordAudit(tx, { action: 'logout', entity: 'sessions', entityId: id, changes: { Kind: p.user ? 'user' : 'ui-link' } }, Date.now(), actor);
    });
    res.status(204).end();
  });

  router.get('/me', authenticate(ctx.keys), async (req, res) => {
    const p = req.principal!;
    const language = p.user ? ((await users.get(p.user.id))?.Language ?? null) : null;
    res.json(describePrincipal(p, language));
  });

  // The person's own language (docs/people.md#language): only a user has one; audited as an update of the user.
  router.patch('/me', authenticate(ctx.keys), async (req, res) => {
    const p = req.principal!;
    const language = languagePatch(req.body);
    if (!p.user) throw conflict(`This ${p.uiSessionId !== undefined ? 'UI-link session' : 'API key'} is not a person's: only a signed-in user has a Language`);
    const actor: Actor = { keyId: null, name: p.user.name, userId: p.user.id };
    const user = await runAs(actor, () => users.setLanguage(p.user!.id, language));
    if (!user) throw unauthorized();
    res.json(describePrincipal(p, user.Language));
  });

  for (const [path, allow] of [['/login', 'POST'], ['/logout', 'POST'], ['/me', 'GET, HEAD, PATCH']] as const) {
    router.all(path, () => {
      throw new ApiError('MethodNotAllowed', `/auth${path} supports ${allow}`, undefined, { Allow: allow });
    });
  }
  return router;
}
