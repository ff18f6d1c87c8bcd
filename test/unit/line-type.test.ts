import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { describe, expect, it } from 'vitest';
import { loadAnnotate } from '../../server/phone/line-type.ts';

const NAMES: Record<string, string> = {
  MOBILE: 'mobile', FIXED_LINE: 'fixed', FIXED_LINE_OR_MOBILE: 'fixed_or_mobile', TOLL_FREE: 'toll_free', PREMIUM_RATE: 'premium_rate', VOIP: 'voip',
  SHARED_COST: 'shared_cost', PERSONAL_NUMBER: 'personal', PAGER: 'pager', UAN: 'uan', VOICEMAIL: 'voicemail',
};

describe('loadAnnotate', () => {
  it("types numbers as libphonenumber-js's full metadata does, with their country", () => {
    const annotate = loadAnnotate();
    let seed = 12345;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const prefixes = ['316', '3120', '31800', '31900', '31970', '4915', '4930', '1212', '1416', '447', '4420', '33', '7916', '77', '61', '8613', '9198', '32', '352'];
    let typed = 0;
    for (let i = 0; i < 3000; i++) {
      const prefix = prefixes[i % prefixes.length]!;
      const digits = prefix + String(100_000_000 + Math.floor(random() * 899_999_999)).slice(0, 6 + Math.floor(random() * 4));
      const parsed = parsePhoneNumberFromString(`+${digits}`);
      const type = parsed?.getType();
      const [lineType, region] = annotate(digits);
      expect(lineType, digits).toBe(type ? NAMES[type] : '');
      if (type) {
        typed++;
        expect(region, digits).toBe(parsed!.country);
      }
    }
    expect(typed).toBeGreaterThan(500);
  });

  it('answers empty cells for digits no country code starts', () => {
    expect(loadAnnotate()('0612345678')).toEqual(['', '']);
    expect(loadAnnotate()('')).toEqual(['', '']);
  });
});
