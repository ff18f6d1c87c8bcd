import type { ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import type { Language } from '../lib/languages.ts';
import type { PageSettings } from './page-settings.ts';
import { BUILT_IN_TEXTS, PAGE_WORDS, type PageTexts } from './page-texts.ts';

/**
 * The unsubscribe pages: self-contained HTML with one inline style sheet (allowed by its hash),
 * no script, no external asset. Every reflected value goes through escapeHtml.
 */

const CSS = `
:root { color-scheme: light dark; --fg: #1f2328; --muted: #59636e; --bg: #f3f4f6; --card: #fff; --accent: #0b57d0; --line: #d1d9e0; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117; --card: #161b22; --accent: #4493f8; --line: #3d444d; } }
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; background: var(--bg); color: var(--fg); font: 17px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; display: flex; align-items: flex-start; justify-content: center; padding: 8vh 16px 32px; }
main { width: 100%; max-width: 34rem; background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 28px 24px; overflow-wrap: anywhere; }
.company { margin: 0 0 4px; color: var(--muted); font-size: 0.9rem; letter-spacing: 0.02em; text-transform: uppercase; }
h1 { margin: 0 0 16px; font-size: 1.5rem; line-height: 1.25; }
p { margin: 0 0 14px; }
p.label { margin-bottom: 6px; color: var(--muted); }
.address { font-size: 1.1rem; font-weight: 600; padding: 10px 12px; border-radius: 8px; background: var(--bg); border: 1px solid var(--line); }
form { margin: 22px 0 0; }
button { width: 100%; font: inherit; font-weight: 600; color: #fff; background: var(--accent); border: 0; border-radius: 8px; padding: 14px 18px; cursor: pointer; }
button:focus-visible { outline: 3px solid var(--fg); outline-offset: 2px; }
.note { color: var(--muted); font-size: 0.9rem; margin-top: 18px; }
@media (min-width: 40rem) { main { padding: 36px 40px; } button { width: auto; min-width: 12rem; } }
`;

const STYLE_HASH = createHash('sha256').update(CSS).digest('base64');

/** Headers on every unsubscribe page (docs/unsubscribe.md#pages). */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  'X-Robots-Tag': 'noindex, nofollow',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Plain text as paragraphs: blank lines separate paragraphs, single line breaks stay. */
function paragraphs(text: string, className?: string): string {
  const cls = className ? ` class="${className}"` : '';
  return text
    .split(/\r?\n\s*\r?\n/)
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map((p) => `<p${cls}>${escapeHtml(p).replace(/\r?\n/g, '<br>')}</p>`)
    .join('\n');
}

/** What a page needs of the settings: the company name and the texts (English at the top level, others in `texts`). */
export type PageSource = Pick<PageSettings, 'companyName' | 'defaultPageText' | 'confirmPageText' | 'resultPageText'> & { texts?: Partial<Record<Language, PageTexts>> };

/** The page texts of `language`: the English ones at the top level, the others from `texts` (built-in when absent). */
function textsOf(settings: PageSource, language: Language): PageTexts {
  return language === 'en' ? settings : (settings.texts?.[language] ?? BUILT_IN_TEXTS[language]);
}

interface Layout {
  settings: PageSource;
  language: Language;
  title: string;
  /** Already-escaped HTML below the heading. */
  body: string;
}

function layout({ settings, language, title, body }: Layout): string {
  const company = settings.companyName.trim();
  const fullTitle = company ? `${title} – ${company}` : title;
  return `<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(fullTitle)}</title>
<style>${CSS}</style>
</head>
<body>
<main>
${company ? `<p class="company">${escapeHtml(company)}</p>\n` : ''}<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

/** `GET /unsubscribe` without a key: the company's default text. */
export function defaultPage(settings: PageSource, language: Language = 'en'): string {
  return layout({ settings, language, title: PAGE_WORDS[language].defaultTitle, body: paragraphs(textsOf(settings, language).defaultPageText) });
}

/**
 * The confirm page: masked address, the configured text and a button that POSTs the key back. The form's
 * action is the relative `?key=K`, which resolves to the page's own path (with or without a proxy's path
 * prefix, and on the deprecated `/unsubscribe/{key}` path too), so a client that follows the action lands
 * on the same unsubscribe POST as one that posts to the page URL.
 */
export function confirmPage(settings: PageSource, maskedAddress: string, key: string, language: Language = 'en'): string {
  const words = PAGE_WORDS[language];
  const body = `<p class="label">${escapeHtml(words.addressLabel)}</p>
<p class="address">${escapeHtml(maskedAddress)}</p>
${paragraphs(textsOf(settings, language).confirmPageText)}
<form method="post" action="?key=${escapeHtml(encodeURIComponent(key))}">
<button type="submit">${escapeHtml(words.button)}</button>
</form>`;
  return layout({ settings, language, title: words.confirmTitle, body });
}

/** After the POST: the address is on the list. */
export function resultPage(settings: PageSource, maskedAddress: string, language: Language = 'en'): string {
  const body = `<p class="address">${escapeHtml(maskedAddress)}</p>
${paragraphs(textsOf(settings, language).resultPageText)}`;
  return layout({ settings, language, title: PAGE_WORDS[language].resultTitle, body });
}

/** Any bad, tampered or outdated key, and any unknown path: one generic page that never says why. */
export function notFoundPage(settings: PageSource, language: Language = 'en'): string {
  const words = PAGE_WORDS[language];
  return layout({ settings, language, title: words.notFoundTitle, body: paragraphs(words.notFoundText) });
}

/** 429: too many requests from this network or for this address. */
export function tooManyRequestsPage(settings: PageSource, retryAfterSeconds: number, language: Language = 'en'): string {
  const words = PAGE_WORDS[language];
  return layout({ settings, language, title: words.tooManyTitle, body: paragraphs(words.tooManyText(retryAfterSeconds)) });
}

/** 500/503: something failed on our side; nothing was changed. */
export function errorPage(settings: PageSource, language: Language = 'en'): string {
  const words = PAGE_WORDS[language];
  return layout({ settings, language, title: words.errorTitle, body: paragraphs(words.errorText) });
}

const PAGE_HEADER_ENTRIES = Object.entries(PAGE_HEADERS);

/**
 * Sends a page in `language` with the security headers of every unsubscribe page: one string in one `res.end`.
 * `Content-Language` names the language; `Vary: Accept-Language` because the request may have chosen it.
 */
export function sendPage(res: ServerResponse, status: number, html: string, language: Language, headers?: Record<string, string>): void {
  res.statusCode = status;
  for (const [name, value] of PAGE_HEADER_ENTRIES) res.setHeader(name, value);
  res.setHeader('Content-Language', language);
  res.setHeader('Vary', 'Accept-Language');
  if (headers) for (const name in headers) res.setHeader(name, headers[name]!);
  res.setHeader('Content-Length', Buffer.byteLength(html));
  res.end(res.req.method === 'HEAD' ? undefined : html);
}
