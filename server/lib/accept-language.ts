/**
 * `Accept-Language` negotiation (RFC 9110 §12.5.4) among the languages we speak: the highest q-value wins (the
 * first named on a tie), a region subtag counts for its language (`nl-BE` → `nl`), `q=0` refuses a language and
 * `*` leaves the choice to the caller's default. Results are cached per header value (browsers send few).
 */
import { isLanguage, type Language } from './languages.ts';

const MAX_RANGES = 32;
const MAX_CACHED = 256;
const cache = new Map<string, Language | null>();

/** The language an `Accept-Language` header asks for among ours, or null (none named, or only `*`). */
export function negotiateLanguage(header: string | undefined): Language | null {
  if (!header) return null;
  const cached = cache.get(header);
  if (cached !== undefined) return cached;
  const chosen = negotiate(header);
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(header, chosen);
  return chosen;
}

function negotiate(header: string): Language | null {
  const refused = new Set<string>();
  let best: { language: Language | null; q: number } = { language: null, q: 0 };
  for (const range of header.split(',', MAX_RANGES)) {
    const [tagPart, ...params] = range.split(';');
    const tag = tagPart!.trim().toLowerCase();
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(p);
      if (m) q = Math.min(1, Number(m[1]));
    }
    const primary = tag === '*' ? '*' : tag.split('-')[0]!;
    if (q === 0) {
      refused.add(primary);
      continue;
    }
    if (q <= best.q) continue;
    if (primary === '*') best = { language: null, q };
    else if (isLanguage(primary) && !refused.has(primary)) best = { language: primary, q };
  }
  return best.language !== null && refused.has(best.language) ? null : best.language;
}
