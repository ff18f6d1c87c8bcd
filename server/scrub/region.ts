import type { CountryCode } from 'libphonenumber-js';
import { phoneRegion } from '../cati/phone-region-setting.ts';
import type { AppContext } from '../context.ts';

/**
 * The phone region scrubs normalise numbers for: the company's stored setting, the one the blacklist is
 * normalised for and `Controller.Check` uses (docs/cati-api.md#phone-region, docs/cati-api.md#scrubs).
 */
export function scrubPhoneRegion(ctx: Pick<AppContext, 'store'>): Promise<CountryCode | null> {
  return phoneRegion(ctx.store);
}
