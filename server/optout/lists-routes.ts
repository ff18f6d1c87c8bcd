import type { Request, Response } from 'express';
import { canAdministerOptOut, canReadOptOut } from '../auth/middleware.ts';
import type { AppContext } from '../context.ts';
import { badRequest, forbidden, notFound } from '../errors.ts';
import { tagPermission } from '../route-table.ts';
import { bodyField, objectBody, singleQuery } from '../http/request-input.ts';
import { ensureList, findListFor, PROJECT_ID } from './lists.ts';

/** The rule both handlers apply to the projectId they are given (shown in the route table). */
const LIST_RULE = 'by projectId: company_administrate (company list) | optout_administrate for that project';
/** The rule of reading a list: also a viewer, for a project list. */
const READ_RULE = `${LIST_RULE} (also a viewer: project lists)`;

function deny(projectId: string | null): never {
  throw forbidden(
    projectId === null
      ? 'The company-level opt-out list needs the permission company_administrate'
      : `The opt-out list of project ${projectId} needs optout_administrate for that project`,
  );
}

/** POST /optout/lists {projectId?}: creates (or returns, idempotently) the company or project list. */
export function createListHandler(ctx: AppContext) {
  return tagPermission(async (req: Request, res: Response) => {
    const raw = bodyField(objectBody(req), 'projectId');
    if (raw !== undefined && raw !== null && typeof raw !== 'string') throw badRequest('projectId must be a string');
    const projectId = raw ? raw : null;
    if (projectId !== null && !PROJECT_ID.test(projectId)) {
      throw badRequest(`projectId must be 'p' followed by digits (like p12345678), not '${projectId}'`);
    }
    if (!canAdministerOptOut(req.principal, projectId)) deny(projectId);
    res.json(await ensureList(ctx.store, ctx.config.companyId, projectId));
  }, LIST_RULE);
}

/** GET /optout/lists?projectId=: the company list (no projectId) or the project's list; 404, never 400. */
export function getListHandler(ctx: AppContext) {
  return tagPermission(async (req: Request, res: Response) => {
    let raw: string | undefined;
    try {
      raw = singleQuery(req, 'projectId');
    } catch {
      throw notFound('No opt-out list for a projectId given more than once'); // this route answers 404, never 400
    }
    const projectId = raw ? raw : null;
    if (projectId !== null && !PROJECT_ID.test(projectId)) throw notFound(`No opt-out list for project '${projectId}'`);
    if (!canReadOptOut(req.principal, projectId)) deny(projectId);
    const list = await findListFor(ctx.store, ctx.config.companyId, projectId);
    if (!list) throw notFound(projectId === null ? 'The company-level opt-out list does not exist yet' : `No opt-out list for project ${projectId}`);
    res.json(list);
  }, READ_RULE);
}
