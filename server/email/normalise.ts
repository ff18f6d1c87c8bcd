import { domainToASCII, domainToUnicode } from 'node:url';
import { createRequire } from 'node:module';

/** validator's isFQDN alone (the package's index loads its hundred validators). */
const isFQDN = (createRequire(import.meta.url)('validator/lib/isFQDN.js') as { default: typeof import('validator/lib/isFQDN.js').default }).default;

/**
 * Validation and normalisation of opt-out entries (docs/optout-api.md#lists): a practical RFC 5321 subset.
 *
 * Domains: trimmed, lowercase, IDN → punycode (UTS #46 via node:url), labels of letters/digits/hyphen
 * (1–63, no hyphen at either end), at least two labels, a TLD of letters (or an `xn--` label), ≤253 chars;
 * no trailing dot, no underscores, no IP addresses.
 * E-mails: trimmed; local part a dot-atom of printable ASCII (no display names, comments, quoted local
 * parts or address literals), ≤64 chars; domain as above; ≤254 chars in all; stored lowercase.
 * Non-ASCII local parts (SMTPUTF8) are refused: RFC 5321 is ASCII and most mailers cannot send to them.
 * The domain's hard part is validator's isFQDN; the local part is RFC 5321's dot-atom (one regex). The unit
 * tests cross-check every accepted address against validator's isEmail with the strict options; it is not
 * called here because it costs ~3 µs per address, too much for a 1,000,000-row import.
 */
export type Checked = { ok: true; value: string } | { ok: false; reason: string };

const DOT_ATOM = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/i;
/* eslint-disable no-control-regex */
const CONTROL_OR_SPACE = /[\s\u0000-\u001f\u007f-\u009f]/;
/** ASCII characters a domain may contain before IDN conversion (anything else ASCII is refused). */
const ASCII_DOMAIN_CHARS = /^(?:[a-z0-9.-]|[^\u0000-\u007f])+$/i;
/** Only characters a plain address has (no display name, comment, quote, space or control character). */
const SIMPLE_EMAIL = /^[a-z0-9!#$%&'*+/=?^_`{|}~.-]+@[^\s"()<>@\u0000-\u001f\u007f-\u009f]+$/i;
/* eslint-enable no-control-regex */
const PLAIN_ASCII_DOMAIN = /^[a-z0-9.-]+$/;

const FQDN_OPTIONS = {
  require_tld: true,
  allow_underscores: false,
  allow_trailing_dot: false,
  allow_numeric_tld: false,
  allow_wildcard: false,
  ignore_max_length: false,
};

const fail = (reason: string): Checked => ({ ok: false, reason });

/**
 * An `xn--` label is the ASCII form of a Unicode label: it decodes, and encodes back to itself. Checked here
 * because node:url's own check differs between Node versions (Node 24's `domainToASCII` passes `xn--zz` through,
 * Node 20's refuses it).
 */
function isALabel(label: string): boolean {
  const unicode = domainToUnicode(label);
  return unicode !== '' && unicode !== label && domainToASCII(unicode) === label;
}

/** Domain validation with a reason on failure; `value` is the stored form (lowercase punycode). */
export function checkDomain(raw: string): Checked {
  const s = raw.trim();
  if (s === '') return fail('the domain is empty');
  if (CONTROL_OR_SPACE.test(s)) return fail('a domain cannot contain spaces or control characters');
  if (s.startsWith('[') || s.endsWith(']')) return fail('address literals like [1.2.3.4] are not accepted');
  if (s.includes('@')) return fail("a domain cannot contain '@'");
  if (!ASCII_DOMAIN_CHARS.test(s)) return fail('a domain may only contain letters, digits, hyphens and dots');
  if (s.endsWith('.') || s.endsWith('。')) return fail('a domain cannot end with a dot');
  let ascii = s.toLowerCase();
  if (!PLAIN_ASCII_DOMAIN.test(ascii) || ascii.includes('xn--')) {
    ascii = domainToASCII(ascii);
    if (ascii === '' || !ascii.split('.').every((l) => !l.startsWith('xn--') || isALabel(l))) {
      return fail('the domain is not a valid internationalised domain name');
    }
  }
  if (ascii.length > 253) return fail('a domain cannot be longer than 253 characters');
  const labels = ascii.split('.');
  if (labels.length < 2) return fail('a domain needs at least two labels (like example.com)');
  for (const label of labels) {
    if (label.length === 0) return fail('a domain cannot contain empty labels (two dots in a row or a leading dot)');
    if (label.length > 63) return fail('a domain label cannot be longer than 63 characters');
    if (label.startsWith('-') || label.endsWith('-')) return fail('a domain label cannot start or end with a hyphen');
  }
  if (/^\d+$/.test(labels[labels.length - 1]!)) return fail('the top-level domain cannot be numeric');
  if (!isFQDN(ascii, FQDN_OPTIONS)) return fail('the domain is not a valid host name (letters, digits, hyphens; alphabetic top-level domain)');
  return { ok: true, value: ascii };
}

/** E-mail address validation with a reason on failure; `value` is the stored form (lowercase, punycode domain). */
export function checkEmail(raw: string, domainCache?: Map<string, Checked>): Checked {
  const s = raw.trim();
  if (!SIMPLE_EMAIL.test(s)) {
    if (s === '') return fail('the e-mail address is empty');
    if (s.includes('<') || s.includes('>')) return fail('display names (Name <address>) are not accepted; send the bare address');
    if (s.includes('(') || s.includes(')')) return fail('comments in e-mail addresses are not accepted');
    if (CONTROL_OR_SPACE.test(s)) return fail('an e-mail address cannot contain spaces or control characters');
    if (s.startsWith('"') || s.includes('"@')) return fail('quoted local parts are not accepted');
  }
  const at = s.lastIndexOf('@');
  if (at < 0) return fail("an e-mail address needs an '@'");
  const local = s.slice(0, at);
  const domainRaw = s.slice(at + 1);
  if (local === '') return fail("the part before '@' is empty");
  if (domainRaw === '') return fail("the part after '@' is empty");
  if (domainRaw.startsWith('[')) return fail('address literals (user@[1.2.3.4]) are not accepted');
  if (local.length > 64) return fail("the part before '@' cannot be longer than 64 characters");
  if (!DOT_ATOM.test(local)) {
    return fail("the part before '@' must be ASCII letters, digits or !#$%&'*+/=?^_`{|}~- separated by single dots");
  }
  let domain = domainCache?.get(domainRaw);
  if (!domain) {
    domain = checkDomain(domainRaw);
    domainCache?.set(domainRaw, domain);
  }
  if (!domain.ok) return domain;
  const value = `${local.toLowerCase()}@${domain.value}`;
  if (value.length > 254) return fail('an e-mail address cannot be longer than 254 characters');
  return { ok: true, value };
}

/** The stored form of an e-mail address (trimmed, lowercase, punycode domain), or null when invalid. */
export function normaliseEmail(raw: string): string | null {
  const r = checkEmail(raw);
  return r.ok ? r.value : null;
}

/** The stored form of a domain (trimmed, lowercase, punycode), or null when invalid. */
export function normaliseDomain(raw: string): string | null {
  const r = checkDomain(raw);
  return r.ok ? r.value : null;
}
