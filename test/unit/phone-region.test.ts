import { describe, expect, it } from 'vitest';
import { checkPhoneRegion, digitsOnly, dropTrunkZero, MAX_NUMBER_DIGITS, normaliseTelephoneNumber, renormaliseStored, trunkPrefix, type NumberType } from '../../server/phone/phone-region.ts';

// docs/cati-api.md#phone-region "Precisely": phone numbers under a region (libphonenumber-js), and the rules that always apply.
const norm = (input: string, region: string | null, type: NumberType = 'Equal') => {
  const r = normaliseTelephoneNumber(input, type, region ? checkPhoneRegion(region) : null);
  return r.ok ? r.value : `error: ${r.message}`;
};

describe('without a region: the docs/cati-api.md#odata digits rule, and the (0) after +CC always dropped', () => {
  it.each([
    ['+31 (0)20 555-0198', '31205550198'],
    ['+44 (0) 20 7946 0958', '442079460958'],
    ['+49(0)30.1234567', '49301234567'],
    ['020 555 0198', '0205550198'],
    ['(020) 555-0198', '0205550198'], // brackets without a +CC before them are just brackets
    ['0031 (0)20 555 0198', '00310205550198'], // only a "+CC" drops the (0)
    ['+1 212 555 0100', '12125550100'],
  ])('%s → %s', (input, digits) => {
    expect(norm(input, null)).toBe(digits);
  });

  it.each([null, 'NL'])('letters are refused whatever the region (%s)', (region) => {
    expect(norm('0800-FLOWERS', region)).toMatch(/^error: .*may contain only digits/);
    expect(norm('+31 20 555 0198 ext 5', region)).toMatch(/^error:/);
    expect(norm('', region)).toMatch(/empty/);
    expect(norm('1'.repeat(33), region)).toMatch(/more than 32 digits/);
  });
});

describe('digitsOnly answers as the docs/cati-api.md#odata rule written with regular expressions', () => {
  // The rule as docs/cati-api.md#odata, docs/cati-api.md#phone-region state it; digitsOnly has a one-pass path for plain input that must agree.
  const byRule = (input: string) => {
    const stripped = dropTrunkZero(input).replace(/[\s\-.()]/g, '').replace(/^\+/, '');
    if (stripped === '') return 'empty';
    if (!/^\d+$/.test(stripped)) return 'characters';
    return stripped.length > MAX_NUMBER_DIGITS ? 'long' : stripped;
  };
  const answer = (input: string) => {
    const r = digitsOnly(input);
    return r.ok ? r.value : r.message.includes('empty') ? 'empty' : r.message.includes('more than') ? 'long' : 'characters';
  };
  it('on 20,000 inputs drawn from digits, separators, +, (0), letters and other spaces', () => {
    const parts = ['0', '1', '5', '9', ' ', '-', '.', '(', ')', '+', '(0)', 'a', '\t', '\u00a0', '/', '0123456789', '1234567890123456'];
    let seed = 26;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 20_000; n++) {
      let input = '';
      for (let k = Math.floor(random() * 8); k >= 0; k--) input += parts[Math.floor(random() * parts.length)];
      expect([input, answer(input)]).toEqual([input, byRule(input)]);
    }
  });
});

describe('three countries: equal numbers become country code + national number', () => {
  it.each([
    // the Netherlands: trunk prefix 0, IDD 00
    ['NL', '+31 (0)20 555-0198', '31205550198'],
    ['NL', '0031 20 555 0198', '31205550198'],
    ['NL', '020 555 0198', '31205550198'],
    ['NL', '06 1234 5678', '31612345678'],
    ['NL', '+44 20 7946 0958', '442079460958'], // international input: for its own country
    // Germany: trunk prefix 0, IDD 00
    ['DE', '030 1234567', '49301234567'],
    ['DE', '+49 (0)30 1234567', '49301234567'],
    ['DE', '0049 30 1234567', '49301234567'],
    // the United States: trunk prefix 1, IDD 011
    ['US', '(212) 555-0100', '12125550100'],
    ['US', '1 212 555 0100', '12125550100'],
    ['US', '+1 212-555-0100', '12125550100'],
    ['US', '011 31 20 555 0198', '31205550198'],
    // Italy keeps its leading 0 after the country code
    ['IT', '06 1234 5678', '390612345678'],
  ])('%s: %s → %s', (region, input, digits) => {
    expect(norm(input, region)).toBe(digits);
  });

  it('a number that is not possible for the region keeps the digits-only rule (never refused for that)', () => {
    expect(norm('1234', 'NL')).toBe('1234');
    expect(norm('123 456 789 012', 'NL')).toBe('123456789012');
    expect(norm('31205550198', 'NL')).toBe('31205550198'); // already international digits: 11 digits is no NL national number
    expect(norm('+999 1234', 'DE')).toBe('9991234');
  });
});

describe('StartWith prefixes', () => {
  it.each([
    ['NL', '020', '3120'],
    ['NL', '0900', '31900'],
    ['NL', '+31 20', '3120'],
    ['NL', '0031 900', '31900'],
    ['NL', '0031 20', '3120'],
    ['NL', '+31 (0)20', '3120'],
    ['DE', '030', '4930'],
    ['US', '212', '1212'],
    ['US', '1 212', '1212'],
    ['US', '011 44', '44'],
    ['IT', '06', '3906'],
  ])('%s: %s → %s', (region, input, digits) => {
    expect(norm(input, region, 'StartWith')).toBe(digits);
  });

  it('without a region a prefix keeps its digits', () => {
    expect(norm('020', null, 'StartWith')).toBe('020');
  });
});

describe('re-normalising stored digits under a new region', () => {
  it.each([
    ['NL', 'Equal', '0205550198', '31205550198'], // trunk prefix: read as national
    ['NL', 'Equal', '31205550198', '31205550198'], // otherwise as international
    ['NL', 'Equal', '0031205550198', '31205550198'],
    ['NL', 'Equal', '123', '123'], // neither possible: unchanged
    ['NL', 'StartWith', '020', '3120'],
    ['NL', 'StartWith', '3120', '3120'],
    ['DE', 'Equal', '31205550198', '31205550198'], // an NL number stays what it is under DE
  ] as const)('%s %s %s → %s', (region, type, stored, digits) => {
    expect(renormaliseStored(stored, type, checkPhoneRegion(region)!)).toBe(digits);
  });

  it('a stored number without the trunk prefix is never read as national (docs/cati-api.md#phone-region: "otherwise as international")', () => {
    expect(renormaliseStored('2125550100', 'Equal', 'US')).toBe('2125550100'); // +212 555 0100 is not possible either: unchanged
    expect(renormaliseStored('12125550100', 'Equal', 'US')).toBe('12125550100');
  });

  it('an Equal number with the trunk prefix that is no possible national number is tried as international', () => {
    // Russia's trunk prefix is 8, like China's country code 86: a stored Chinese number is not lost.
    expect(trunkPrefix('RU')).toBe('8');
    expect(renormaliseStored('8613912345678', 'Equal', 'RU')).toBe('8613912345678');
    expect(renormaliseStored('84951234567', 'Equal', 'RU')).toBe('74951234567');
  });

  it('knows the regions libphonenumber-js knows', () => {
    expect(checkPhoneRegion('nl')).toBe('NL');
    expect(checkPhoneRegion('XX')).toBeNull();
    expect(checkPhoneRegion('NLD')).toBeNull();
  });
});
