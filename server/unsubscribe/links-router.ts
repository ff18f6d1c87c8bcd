import { jsonBody } from '../http/json-body.ts';
import { Router } from 'express';
import type { AppContext } from '../context.ts';
import { badRequest } from '../errors.ts';
import { linkOrigin } from '../http/host-rules.ts';
import { listOf, loadList } from '../optout/list-access.ts';
import { PROJECT_ID } from '../optout/lists.ts';
import { checkEmail } from '../email/normalise.ts';
import { bodyField, objectBody } from '../http/request-input.ts';
import { openKeyCodec } from './key-codec.ts';

/**
 * `POST /optout/lists/{id}/unsubscribe-links` `{emailAddress, projectId?}` → `{key, url}` for mailers
 * (docs/unsubscribe.md#keys). The list is loaded like every other list route (400 bad id, 404 unknown, 403 not
 * administrable) and body fields are matched case-insensitively like the rest of the opt-out API.
 * `projectId` (optional) names the project the mail is sent for, recorded as `unsubscribedFrom`; it
 * defaults to the list's project and must equal it on a project-level list.
 */
export function unsubscribeLinksRouter(ctx: AppContext): Router {
  const codec = openKeyCodec(ctx.config.dataDir);
  const router = Router();

  router.post('/lists/:listId/unsubscribe-links', loadList(ctx), jsonBody, (req, res) => {
    const list = listOf(res);
    const body = objectBody(req);
    const emailAddress = bodyField(body, 'emailAddress');
    if (typeof emailAddress !== 'string') throw badRequest('The body must be a JSON object with the string field emailAddress');
    const email = checkEmail(emailAddress);
    if (!email.ok) throw badRequest(`Invalid e-mail address '${emailAddress}': ${email.reason}`);

    let from = list.projectId;
    const projectId = bodyField(body, 'projectId');
    if (projectId !== undefined && projectId !== null && projectId !== '') {
      if (typeof projectId !== 'string' || !PROJECT_ID.test(projectId)) throw badRequest("projectId must look like 'p12345678'");
      if (list.projectId !== null && projectId !== list.projectId) {
        throw badRequest(`projectId must be ${list.projectId}, the project of this list (or be left out)`);
      }
      from = projectId;
    }

    const key = codec.encode({ listId: list.id, emailAddress: email.value, projectId: from });
    const base = linkOrigin(req, ctx.config.publicUrl); // docs/cati-api.md#hosts: the public URL, else the (allowed) Host
    res.json({ key, url: `${base}/unsubscribe?key=${key}` });
  });

  return router;
}
