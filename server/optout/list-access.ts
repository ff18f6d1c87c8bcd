import type { NextFunction, Request, Response } from 'express';
import { mayUseOptOutList } from '../auth/middleware.ts';
import type { AppContext } from '../context.ts';
import { forbidden, notFound } from '../errors.ts';
import { parsePositiveId } from '../http/path-params.ts';
import { tagPermission } from '../route-table.ts';
import { findList, type OptOutList } from './lists.ts';

/** The list loaded by `loadList` for this request. */
export function listOf(res: Response): OptOutList {
  return res.locals.optOutList as OptOutList;
}

/**
 * Middleware for every route under /optout/lists/{optOutListId}/…: the id must be a positive int64 (400),
 * the list must exist (404), and the key must administer it (403: company_administrate for the company list,
 * optout_administrate within its project limit for a project list); a viewer may GET a project list.
 * Order: 404 before 403. A key learns at most that a list id exists (ids are sequential, carry no data),
 * and the contract's "else 403" is about lists that exist; GET /optout/lists?projectId= on the other hand
 * answers 403 before looking, so project ids are never probed.
 */
export function loadList(ctx: AppContext) {
  return tagPermission(async (req: Request, res: Response, next: NextFunction) => {
    const id = parsePositiveId(req.params.listId as string | undefined, 'optOutListId');
    const list = await findList(ctx.store, id);
    if (!list) throw notFound(`Opt-out list ${req.params.listId as string} does not exist`);
    if (!mayUseOptOutList(req.principal, list.projectId, req.method)) {
      throw forbidden(
        list.projectId === null
          ? 'The company-level opt-out list needs the permission company_administrate'
          : `The opt-out list of project ${list.projectId} needs optout_administrate for that project`,
      );
    }
    res.locals.optOutList = list;
    next();
  }, "the list's administrator: company_administrate (company list) | optout_administrate for its project (GET: also a viewer, project lists)");
}
