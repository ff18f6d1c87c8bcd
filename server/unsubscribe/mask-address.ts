import { domainToUnicode } from 'node:url';

const DOTS = '•••';

/**
 * Masks an address for the confirm page: the first character of the local part and of the domain,
 * then the top-level domain, e.g. `john.doe@example.com` → `j•••@e•••.com`. A fixed number of dots
 * hides the lengths. Punycode domains are shown in Unicode (`xn--mller-kva.de` → `m•••.de`).
 */
export function maskAddress(address: string): string {
  const at = address.lastIndexOf('@');
  if (at <= 0) return DOTS;
  const local = address.slice(0, at);
  const domain = domainToUnicode(address.slice(at + 1)) || address.slice(at + 1);
  const labels = domain.split('.');
  const tld = labels.length > 1 ? labels.pop()! : '';
  const first = (s: string) => Array.from(s)[0] ?? '';
  return `${first(local)}${DOTS}@${first(labels.join('.'))}${DOTS}${tld ? `.${tld}` : ''}`;
}
