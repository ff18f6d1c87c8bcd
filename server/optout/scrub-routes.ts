/**
 * `/optout/scrubs` (docs/optout-api.md#scrubs): scrub a mailing list against the company's opt-out list and, with
 * `projectId`, that project's list too (the project's first). Permission as reading those lists: the
 * project's administrator (optout_administrate within its project limit) with `projectId`, else
 * company_administrate. The job engine is server/scrub/.
 */
import { Router, type Request } from 'express';
import { actorOf } from '../audit/audit-log.ts';
import { canAdministerOptOut, requirePermission } from '../auth/middleware.ts';
import type { AppContext } from '../context.ts';
import { badRequest, forbidden } from '../errors.ts';
import { linkOrigin } from '../http/host-rules.ts';
import { scrubEngine } from '../scrub/lazy-engine.ts';
import type { ListSource } from '../scrub/list-entries.ts';
import { uploadFile } from '../files/upload.ts';
import { findListFor, PROJECT_ID } from './lists.ts';

/** The list's columns a removed row gains after its own (the scrub adds MatchedRow, Normalized, … after them). */
export const OPTOUT_REMOVED_COLUMNS = ['Reason', 'MatchedId', 'MatchedList'] as const;

/**
 * The lists (by id, in priority order) as a scrub's list (code 1: domain; matched with the lists' Check rules in the
 * worker, scrub/email-index.ts).
 */
function optoutLists(listIds: number[]): ListSource {
  const pages = listIds.flatMap((listId) => [
    { query: { table: 'optout_emails', value: 'email_address', code: "'0'", where: 'list_id = ?' }, params: [listId], listId },
    { query: { table: 'optout_domains', value: 'domain', code: "'1'", where: 'list_id = ?' }, params: [listId], listId },
  ]);
  return { extraColumns: OPTOUT_REMOVED_COLUMNS, pages };
}

/** The router of `/optout/scrubs`. */
export function optoutScrubRouter(ctx: AppContext): Router {
  const router = Router();
  const someList = requirePermission('company_administrate', 'optout_administrate');
  const upload = uploadFile(ctx.config.dataDir);
  const loaded = () => scrubEngine(ctx);
  const find = async (req: Request) => {
    const { e, service } = await loaded();
    return { e, service, job: await service.find(req.params.id as string, 'email', req.principal!) };
  };

  router.post('/', someList, upload, async (req, res) => {
    const { e, service } = await loaded();
    const file = e.uploadedFile(req);
    const projectId = e.formField(req, 'projectId') || null;
    if (projectId !== null && !PROJECT_ID.test(projectId)) throw badRequest(`projectId must look like p123, not '${projectId}'`);
    if (!canAdministerOptOut(req.principal, projectId)) {
      throw forbidden(projectId === null ? 'Scrubbing against the company-level list needs company_administrate' : `The opt-out list of project ${projectId} needs optout_administrate for that project`);
    }
    const lists = [projectId === null ? undefined : await findListFor(ctx.store, ctx.config.companyId, projectId), await findListFor(ctx.store, ctx.config.companyId, null)];
    const listIds = lists.flatMap((l) => (l ? [l.id] : []));
    const request = { filePath: file.path, column: e.formField(req, 'column'), header: e.formField(req, 'header'), sheet: e.formField(req, 'sheet'), dedupe: e.flagField(req, 'dedupe'), annotate: e.flagField(req, 'annotate'), region: null, list: optoutLists(listIds) };
    const job = await service.start('email', req.principal!, actorOf(req), file.originalname, () => e.scrubFormat(file.originalname, file.path), request, listIds);
    res.status(202).location(`${linkOrigin(req, ctx.config.publicUrl)}/optout/scrubs/${job.id}`).json(e.jobAnswer(job));
  });
  // Extension: the caller's recent scrubs (the screen's list), newest first.
  router.get('/', someList, async (req, res) => {
    const { e, service } = await loaded();
    res.json({ value: (await service.list('email', req.principal!)).map(e.jobAnswer) });
  });
  router.get('/:id', someList, async (req, res) => {
    const { e, job } = await find(req);
    res.json(e.jobAnswer(job));
  });
  router.get('/:id/:result', someList, async (req, res, next) => {
    const result = req.params.result;
    if (result !== 'kept' && result !== 'removed') return next();
    const { e, service, job } = await find(req);
    await e.sendResult(req, res, job, result, (j, n) => service.resultRows(j, n));
  });
  router.delete('/:id', someList, async (req, res) => {
    const { service, job } = await find(req);
    await service.remove(job);
    res.status(204).end();
  });
  return router;
}
