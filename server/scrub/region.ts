import type { CountryCode } from 'libphonenumber-js';
import { phoneRegion } from '../cati/phone-region-setting.ts';
import type { AppContext } from '../context.ts';

/**
 * The phone region scrubs normalise numbers for: the company's stored setting, the one the blacklist is
 * normalised for and `Controller.Check` uses (CONTRACT §14, §16).
 */
export function scrubPhoneRegion(ctx: Pick<AppContext, 'store'>): Promise<CountryCode | null> {
  return phoneRegion(ctx.store);
}
