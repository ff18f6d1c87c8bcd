import type { CountryCode } from 'libphonenumber-js';
import { checkPhoneRegion } from '../cati/phone-region.ts';
import type { AppContext } from '../context.ts';

/**
 * The phone region scrubs normalise numbers for — the one the stored blacklist is normalised for. The one
 * place scrubs ask for it (today `--phone-region`; re-point here when it becomes a stored setting).
 */
export function scrubPhoneRegion(ctx: Pick<AppContext, 'config'>): CountryCode | null {
  return ctx.config.phoneRegion ? checkPhoneRegion(ctx.config.phoneRegion) : null;
}
