import type { Request, Response } from 'express';
import { canAdministerOptOut, canReadOptOut } from '../auth/middleware.ts';
import type { AppContext } from '../context.ts';
import { badRequest, forbidden, notFound } from '../errors.ts';
import { tagPermission } from '../route-table.ts';
import { bodyField, objectBody, singleQuery } from '../http/request-input.ts';
import { parseLanguage, type Language } from '../lib/languages.ts';
import { listOf } from './list-access.ts';
import { ensureList, findList, findListFor, PROJECT_ID, setListLanguage } from './lists.ts';

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

/** The `language` of a list body: undefined when absent, null to clear, else en/nl/de (400 naming anything else). */
function languageOf(body: Record<string, unknown>): Language | null | undefined {
  const raw = bodyField(body, 'language');
  return raw === undefined ? undefined : parseLanguage(raw, 'language');
}

/**
 * POST /optout/lists {projectId?, language?}: creates (or returns, idempotently) the company or project list; a
 * language sent is set on it (docs/unsubscribe.md#languages).
 */
export function createListHandler(ctx: AppContext) {
  return tagPermission(async (req: Request, res: Response) => {
    const body = objectBody(req);
    const raw = bodyField(body, 'projectId');
    const language = languageOf(body);
    if (raw !== undefined && raw !== null && typeof raw !== 'string') throw badRequest('projectId must be a string');
    const projectId = raw ? raw : null;
    if (projectId !== null && !PROJECT_ID.test(projectId)) {
      throw badRequest(`projectId must be 'p' followed by digits (like p12345678), not '${projectId}'`);
    }
    if (!canAdministerOptOut(req.principal, projectId)) deny(projectId);
    res.json(await ensureList(ctx.store, ctx.config.companyId, projectId, language));
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

/** GET /optout/lists/{id} (behind loadList): the list. */
export function readListHandler() {
  return (_req: Request, res: Response) => {
    res.json(listOf(res));
  };
}

/** PATCH /optout/lists/{id} {language} (behind loadList, so its administrator only): sets the pages' language, audited. */
export function patchListHandler(ctx: AppContext) {
  return async (req: Request, res: Response) => {
    const body = objectBody(req);
    const unknown = Object.keys(body).filter((k) => k.toLowerCase() !== 'language');
    if (unknown.length) throw badRequest(`Unknown field ${unknown.map((k) => `'${k}'`).join(', ')}: a list's only changeable field is language`);
    const language = languageOf(body);
    if (language === undefined) throw badRequest('Send {"language": "en" | "nl" | "de" | null}');
    const id = listOf(res).id;
    const list = await ctx.store.transaction(async (tx) => {
      const current = await findList(tx, id);
      if (!current) throw notFound(`Opt-out list ${id} does not exist`);
      return setListLanguage(tx, current, language);
    });
    res.json(list);
  };
}
