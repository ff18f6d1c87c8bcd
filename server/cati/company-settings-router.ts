/**
 * `GET`/`PATCH /admin/settings`: the company's settings, today `{"PhoneRegion": "NL" | null}`. GET is readable
 * by every signed-in person and every `cati_read` key (the screens show the region beside every phone input);
 * PATCH and the preview stay `company_administrate` (docs/people.md#company-settings). PATCH with `{"PhoneRegion": "DE"}` (or null) stores the region and
 * re-normalises the stored blacklist numbers in one transaction, audited (blacklist-region.ts); an unknown
 * region → 400 naming it, nothing changed. `GET /admin/settings/phone-region-preview?region=DE` is the dry
 * run the Settings screen shows before a change: how numbers would be stored, how many stored entries would
 * change and how many would merge.
 */
import { Router } from 'express';
import type { CountryCode } from 'libphonenumber-js';
import { requirePermission } from '../auth/middleware.ts';
import type { AppContext } from '../context.ts';
import { ApiError, badRequest } from '../errors.ts';
import { jsonBody } from '../http/json-body.ts';
import { applyPhoneRegion, previewPhoneRegion } from './blacklist-region.ts';
import { phoneExamples, phoneLib } from '../phone/phone-lib.ts';
import { checkPhoneRegion, normaliseTelephoneNumber } from '../phone/phone-region.ts';
import { phoneRegion } from './phone-region-setting.ts';

/** The region of a request (`"DE"`, `null`), or a 400 naming what was sent. */
function regionOf(value: unknown): CountryCode | null {
  if (value === null || value === '') return null;
  if (typeof value !== 'string') throw badRequest('PhoneRegion must be an ISO 3166 alpha-2 country code such as NL or DE, or null');
  const region = checkPhoneRegion(value);
  if (!region) throw badRequest(`Unknown phone region '${value}': PhoneRegion must be an ISO 3166 alpha-2 country code with a numbering plan, such as NL or DE, or null`);
  return region;
}

/** How typed numbers would be stored under a region (null: digits only): the region's example mobile number in its usual spellings. */
export function phoneRegionExamples(region: CountryCode | null, exampleRegion: CountryCode = region ?? 'NL'): { Input: string; Stored: string }[] {
  const example = phoneLib().getExampleNumber(exampleRegion, phoneExamples());
  if (!example) return [];
  const inputs = [example.formatNational(), example.formatInternational(), `00${example.countryCallingCode} ${example.nationalNumber}`];
  return inputs.map((input) => {
    const n = normaliseTelephoneNumber(input, 'Equal', region);
    return { Input: input, Stored: n.ok ? n.value : '' };
  });
}

/** The /admin/settings router. */
export function companySettingsRouter(ctx: AppContext): Router {
  const router = Router();
  const settings = async () => ({ PhoneRegion: await phoneRegion(ctx.store) });
  router.get('/', requirePermission('cati_read'), async (_req, res) => {
    res.json(await settings());
  });
  router.use(requirePermission('company_administrate'));
  router.patch('/', jsonBody, async (req, res) => {
    const body = req.body as unknown;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('PATCH /admin/settings needs a JSON object such as {"PhoneRegion": "NL"}');
    const unknown = Object.keys(body).filter((k) => k !== 'PhoneRegion');
    if (unknown.length) throw badRequest(`Unknown setting ${unknown.map((k) => `'${k}'`).join(', ')} (known: PhoneRegion)`);
    let outcome = { updated: 0, merged: 0 };
    if ('PhoneRegion' in body) outcome = await applyPhoneRegion(ctx.store, regionOf((body as { PhoneRegion: unknown }).PhoneRegion));
    res.json({ ...(await settings()), Renormalised: { Updated: outcome.updated, Merged: outcome.merged } });
  });
  router.get('/phone-region-preview', async (req, res) => {
    const region = regionOf(req.query.region ?? null);
    const current = await phoneRegion(ctx.store);
    const preview = region === current ? { ...(await previewPhoneRegion(ctx.store, null)), Changes: 0, Merges: 0 } : await previewPhoneRegion(ctx.store, region);
    res.json({ Region: region, Current: current, Examples: phoneRegionExamples(region, region ?? current ?? 'NL'), ...preview });
  });
  router.all(['/', '/phone-region-preview'], (req) => {
    const allow = req.path === '/' ? 'GET, HEAD, PATCH' : 'GET, HEAD';
    throw new ApiError('MethodNotAllowed', `${req.method} is not allowed here; allowed: ${allow}`, undefined, { Allow: allow });
  });
  return router;
}
