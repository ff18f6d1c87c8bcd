import type { Request, Response } from 'express';
import type { AppContext } from '../context.ts';
import { badRequest, notFound } from '../errors.ts';
import { addDomainEntry, addEmailEntry, checkAddress, deleteEntry, type EntryKind } from './entries.ts';
import { pageEntries, parsePageQuery } from './entries-query.ts';
import { parsePositiveId } from '../http/path-params.ts';
import { listOf } from './list-access.ts';
import { checkDomain, checkEmail } from '../email/normalise.ts';
import { bodyField, objectBody, queryParams } from '../http/request-input.ts';

const FIELD: Record<EntryKind, string> = { emails: 'emailAddress', domains: 'domain' };

/** POST …/emails {emailAddress} or …/domains {domain} → 200 with the entry id (new or existing) as a bare integer. */
export function addEntryHandler(ctx: AppContext, kind: EntryKind) {
  return async (req: Request, res: Response) => {
    const raw = bodyField(objectBody(req), FIELD[kind]);
    if (typeof raw !== 'string') throw badRequest(`The body must be a JSON object with the string field ${FIELD[kind]}`);
    const checked = kind === 'emails' ? checkEmail(raw) : checkDomain(raw);
    if (!checked.ok) throw badRequest(`Invalid ${kind === 'emails' ? 'e-mail address' : 'domain'} '${raw}': ${checked.reason}`);
    const list = listOf(res);
    const id = kind === 'emails' ? await addEmailEntry(ctx.store, list.id, checked.value, null) : await addDomainEntry(ctx.store, list.id, checked.value);
    res.json(id);
  };
}

/** GET …/emails or …/domains: one page, `{totalCount, items}`. */
export function pageEntriesHandler(ctx: AppContext, kind: EntryKind) {
  return async (req: Request, res: Response) => {
    const query = parsePageQuery(kind, queryParams(req));
    res.json(await pageEntries(ctx.store, kind, listOf(res).id, query));
  };
}

/** DELETE …/emails/{emailId} or …/domains/{domainId} → 204; unknown entry → 404. */
export function deleteEntryHandler(ctx: AppContext, kind: EntryKind) {
  return async (req: Request, res: Response) => {
    const name = kind === 'emails' ? 'emailId' : 'domainId';
    const id = parsePositiveId(req.params.entryId as string | undefined, name);
    const list = listOf(res);
    if (!(await deleteEntry(ctx.store, kind, list.id, id))) {
      throw notFound(`Opt-out list ${list.id} has no ${kind === 'emails' ? 'e-mail' : 'domain'} entry ${req.params.entryId as string}`);
    }
    res.status(204).end();
  };
}

/** GET …/Check?emailAddress= → `{blocked, matchedBy, entryId}` (extension for mailers). */
export function checkHandler(ctx: AppContext) {
  return async (req: Request, res: Response) => {
    const raw = queryParams(req).get('emailaddress');
    if (raw === undefined || raw === '') throw badRequest('Query parameter emailAddress is required');
    const checked = checkEmail(raw);
    if (!checked.ok) throw badRequest(`Invalid e-mail address '${raw}': ${checked.reason}`);
    res.json(await checkAddress(ctx.store, listOf(res).id, checked.value));
  };
}
