import { Router } from 'express';
import { canAdministerOptOut } from '../auth/middleware.ts';
import type { AppContext } from '../context.ts';
import { badRequest, forbidden, notFound } from '../errors.ts';
import { findList, PROJECT_ID } from '../optout/lists.ts';
import { checkEmail } from '../optout/normalise.ts';
import { openKeyCodec } from './key-codec.ts';

/** Largest list id accepted in a path (int64 as far as a JS number is exact). */
const MAX_ID = Number.MAX_SAFE_INTEGER;

/**
 * `POST /optout/lists/{id}/unsubscribe-links` `{emailAddress, projectId?}` → `{key, url}` for mailers
 * (CONTRACT §6). Same permission rules as the rest of the list. `projectId` (optional) names the project
 * the mail is sent for, recorded as `unsubscribedFrom`; it defaults to the list's project and must equal
 * it on a project-level list.
 */
export function unsubscribeLinksRouter(ctx: AppContext): Router {
  const codec = openKeyCodec(ctx.config.dataDir);
  const router = Router();

  router.post('/lists/:id/unsubscribe-links', (req, res) => {
    const rawId = req.params.id;
    if (!/^\d{1,16}$/.test(rawId) || Number(rawId) < 1 || Number(rawId) > MAX_ID) {
      throw badRequest(`The list id '${rawId}' is not a positive integer`);
    }
    const list = findList(ctx.db, Number(rawId));
    if (!list) throw notFound(`No opt-out list with id ${rawId}`);
    if (!canAdministerOptOut(req.principal, list.projectId)) {
      throw forbidden(
        list.projectId === null
          ? 'The company-level opt-out list needs the permission company_administrate'
          : `The opt-out list of project ${list.projectId} needs the permission optout_administrate for that project`,
      );
    }

    const body: unknown = req.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw badRequest('Send a JSON object {"emailAddress": "..."}');
    }
    const { emailAddress, projectId, ...rest } = body as Record<string, unknown>;
    const unknown = Object.keys(rest)[0];
    if (unknown !== undefined) throw badRequest(`Unknown field '${unknown}'; the fields are emailAddress and projectId`);
    if (typeof emailAddress !== 'string') throw badRequest("'emailAddress' is required and must be a string");
    const email = checkEmail(emailAddress);
    if (!email.ok) throw badRequest(`Invalid emailAddress: ${email.reason}`);

    let from = list.projectId;
    if (projectId !== undefined && projectId !== null && projectId !== '') {
      if (typeof projectId !== 'string' || !PROJECT_ID.test(projectId)) throw badRequest("'projectId' must look like p12345678");
      if (list.projectId !== null && projectId !== list.projectId) {
        throw badRequest(`'projectId' must be ${list.projectId}, the project of this list (or be left out)`);
      }
      from = projectId;
    }

    const key = codec.encode({ listId: list.id, emailAddress: email.value, projectId: from });
    const base = (ctx.config.publicUrl ?? ctx.baseUrl()).replace(/\/+$/, '');
    res.json({ key, url: `${base}/unsubscribe?key=${key}` });
  });

  return router;
}
