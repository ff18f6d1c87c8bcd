import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import validator from 'validator';
import { describe, expect, it } from 'vitest';
import { checkDomain, checkEmail, normaliseDomain, normaliseEmail } from '../../server/email/normalise.ts';
import { sharedData } from '../helpers/shared-data.ts';

const valid = sharedData('email/emails-valid.txt');
const haveData = valid !== undefined && sharedData('email/emails-invalid.txt') !== undefined;
const DIR = valid && dirname(valid);

/** Lines of a test file exactly as written (only the final newline dropped). */
const lines = (file: string) => readFileSync(`${DIR}/${file}`, 'utf8').replace(/\n$/, '').split('\n');

describe.skipIf(!haveData)('e-mail test data (PROVENANCE.md: decided under docs/optout-api.md#lists)', () => {
  it('accepts every line of emails-valid.txt', () => {
    const rejected = lines('emails-valid.txt').filter((l) => !checkEmail(l).ok);
    expect(rejected).toEqual([]);
  });

  it('rejects every line of emails-invalid.txt', () => {
    const accepted = lines('emails-invalid.txt').filter((l) => checkEmail(l).ok);
    expect(accepted).toEqual([]);
  });

  it("agrees with validator's strict isEmail on every address it accepts", () => {
    const strict = { allow_display_name: false, allow_utf8_local_part: false, require_tld: true, allow_ip_domain: false, ignore_max_length: false };
    for (const l of [...lines('emails-valid.txt'), ...lines('emails-invalid.txt')]) {
      const r = checkEmail(l);
      if (r.ok) expect(validator.isEmail(r.value, strict), r.value).toBe(true);
    }
  });
});

describe('normaliseEmail', () => {
  it('trims and lowercases, and converts an IDN domain to punycode', () => {
    expect(normaliseEmail('  Foo.Bar@Example.COM ')).toBe('foo.bar@example.com');
    expect(normaliseEmail('info@Bücher.de')).toBe('info@xn--bcher-kva.de');
    expect(normaliseEmail('x@例え.テスト')).toBe('x@xn--r8jz45g.xn--zckzah');
  });

  it('keeps local parts that start with characters a spreadsheet treats as formulas', () => {
    expect(normaliseEmail('-x@example.com')).toBe('-x@example.com');
    expect(normaliseEmail("'x@example.com")).toBe("'x@example.com");
    expect(normaliseEmail('=1+2@example.com')).toBe('=1+2@example.com');
  });

  it('gives a reason that names the problem', () => {
    expect(checkEmail('Some Name <a@b.com>')).toEqual({ ok: false, reason: expect.stringMatching(/display name/) });
    expect(checkEmail('a(comment)@b.com')).toEqual({ ok: false, reason: expect.stringMatching(/comment/) });
    expect(checkEmail('"a"@b.com')).toEqual({ ok: false, reason: expect.stringMatching(/quoted/) });
    expect(checkEmail('a@[1.2.3.4]')).toEqual({ ok: false, reason: expect.stringMatching(/literal/) });
    expect(checkEmail(`${'a'.repeat(65)}@b.com`)).toEqual({ ok: false, reason: expect.stringMatching(/64/) });
    expect(checkEmail(`a@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(60)}.com`)).toEqual({
      ok: false,
      reason: expect.stringMatching(/25[34]/),
    });
  });

  it('refuses non-ASCII local parts (RFC 5321 subset)', () => {
    expect(normaliseEmail('ñoño@example.com')).toBeNull();
  });
});

describe('normaliseDomain', () => {
  it('stores lowercase punycode', () => {
    expect(normaliseDomain(' Example.COM ')).toBe('example.com');
    expect(normaliseDomain('Bücher.DE')).toBe('xn--bcher-kva.de');
    expect(normaliseDomain('xn--bcher-kva.de')).toBe('xn--bcher-kva.de');
  });

  it.each([
    ['', /empty/],
    ['example', /two labels/],
    ['-a.com', /hyphen/],
    ['a-.com', /hyphen/],
    ['a..com', /empty labels/],
    ['.a.com', /empty labels/],
    ['a.com.', /dot/],
    [`${'a'.repeat(64)}.com`, /63/],
    ['a.123', /numeric/],
    ['1.2.3.4', /numeric/],
    ['a_b.com', /letters, digits/],
    ['iana/icann.org', /letters, digits/],
    ['a b.com', /spaces/],
    ['a@b.com', /@/],
    ['[1.2.3.4]', /literal/],
    ['xn--zz.com', /internationalised/],
  ])('rejects %j', (raw, reason) => {
    const r = checkDomain(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(reason);
  });
});
