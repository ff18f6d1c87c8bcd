/**
 * Files the user downloads: server exports (`$format=csv|xlsx`, CONTRACT §8), tables built in the browser as CSV,
 * and the one function that saves a file (the desktop app swaps `saveFile` for a native save dialog).
 */
import { buildPath, send, type RequestOptions } from './client.ts';

/** Saves `blob` as `name` (a browser download). The desktop app replaces this with its save dialog. */
export async function saveFile(name: string, blob: Blob): Promise<void> {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  // The download has started once click() returned; the object URL can go after a moment.
  window.setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

/** The file name of a `Content-Disposition: attachment; filename="…"` header, else `fallback`. */
export function attachmentName(res: Response, fallback: string): string {
  const disposition = res.headers.get('Content-Disposition') ?? '';
  return /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? fallback;
}

/** Downloads the server's export of a collection query (every matching row, all pages) and saves it; answers the file name. */
export async function downloadExport(path: string, query: RequestOptions['query'], format: 'csv' | 'xlsx'): Promise<string> {
  const res = await send('GET', buildPath(path, { ...query, $format: format }), { headers: { Accept: '*/*' } });
  const name = attachmentName(res, `${path.replace(/^.*\//, '').replace(/[^\w-]/g, '') || 'export'}.${format}`);
  await saveFile(name, await res.blob());
  return name;
}

const FORMULA_START = /^[=+\-@\t\r']/;

/** One CSV cell: RFC 4180 quoting and the formula guard of the server's exports (a leading `=`, `+`, `-`, `@`… gets a `'`). */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A CSV file (UTF-8 with BOM so Excel opens it right, CRLF lines) from a header and rows. */
export function toCsv(header: string[], rows: unknown[][]): Blob {
  const lines = [header, ...rows].map((r) => r.map(csvCell).join(','));
  return new Blob([`\uFEFF${lines.join('\r\n')}\r\n`], { type: 'text/csv;charset=utf-8' });
}

/** Today's UTC date for file names: `2026-11-02`. */
export const utcDate = (d = new Date()): string => d.toISOString().slice(0, 10);
