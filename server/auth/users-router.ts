/**
 * `/admin/users` (docs/people.md#roles, `company_administrate`): `GET /` → `{"value": [users]}`, `POST /` → 201 the new
 * user, `GET`/`PATCH`/`DELETE /{UserId}`. A user is `{UserId, Name, DisplayName, Role, Locked, CreatedAt,
 * LastLoginAt}`; bad input → 400 naming the field, the last unlocked administrator → 409. Mounted behind
 * `authenticate` and `bindActor`; parses JSON after the permission check.
 */
import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { jsonBody } from '../http/json-body.ts';
import { parsePositiveId } from '../http/path-params.ts';
import { requirePermission } from './middleware.ts';
import { parseNewUser, parseUserPatch } from './user-input.ts';

function noStore(_req: Request, res: Response, next: () => void) {
  res.setHeader('Cache-Control', 'no-store');
  next();
}

const userId = (req: Request) => parsePositiveId(req.params.id as string | undefined, 'UserId');

export function usersRouter(ctx: AppContext): Router {
  const router = Router();
  const { users } = ctx.keys;
  router.use(noStore, requirePermission('company_administrate'), jsonBody);

  router.get('/', async (_req, res) => {
    res.json({ value: await users.list() });
  });
  router.post('/', async (req, res) => {
    const user = await users.create(parseNewUser(req.body));
    res.status(201).setHeader('Location', `/admin/users/${user.UserId}`).json(user);
  });
  router.all('/', () => {
    throw new ApiError('MethodNotAllowed', '/admin/users supports GET and POST', undefined, { Allow: 'GET, HEAD, POST' });
  });

  router.get('/:id', async (req, res) => {
    res.json(await users.require(userId(req)));
  });
  router.patch('/:id', async (req, res) => {
    const id = userId(req);
    const patch = parseUserPatch(req.body);
    const user = (await users.update(id, patch)) ?? (await users.require(id));
    res.json(user);
  });
  router.delete('/:id', async (req, res) => {
    const id = userId(req);
    if (!(await users.remove(id))) await users.require(id);
    res.status(204).end();
  });
  router.all('/:id', () => {
    throw new ApiError('MethodNotAllowed', '/admin/users/{UserId} supports GET, PATCH and DELETE', undefined, { Allow: 'GET, HEAD, PATCH, DELETE' });
  });
  return router;
}
