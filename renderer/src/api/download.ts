/**
 * Files the user downloads: server exports (`$format=csv|xlsx`, docs/cati-api.md#exports), tables built in the browser as CSV or XLSX.
 * In a browser they are downloads; in the desktop app a native save dialog asks where, and exports are streamed by
 * the main process from the API into the chosen file (never held whole in memory).
 */
import { buildPath, send, type RequestOptions } from './client.ts';
import { baseName, desktopBridge } from './desktop.ts';
import { isTyped, type ExportValue, type TypedCell } from './export-cells.ts';

/** Saves `blob` as `name`: a browser download, or the desktop app's save dialog. Answers the name saved under, null when cancelled. */
export async function saveFile(name: string, blob: Blob): Promise<string | null> {
  const desktop = desktopBridge();
  if (desktop) {
    const saved = await desktop.saveFile(name, new Uint8Array(await blob.arrayBuffer()));
    return saved && baseName(saved);
  }
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  // The download has started once click() returned; the object URL can go after a moment.
  window.setTimeout(() => URL.revokeObjectURL(url), 30_000);
  return name;
}

/** The file name of a `Content-Disposition: attachment; filename="…"` header, else `fallback`. */
export function attachmentName(res: Response, fallback: string): string {
  const disposition = res.headers.get('Content-Disposition') ?? '';
  return /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? fallback;
}

/**
 * Saves the API's answer to `GET path?query` as a file (an export): in the desktop app through the save dialog and a
 * main-process stream; in a browser as a download named by the answer's Content-Disposition. Answers the file's
 * name, or null when the user cancelled.
 */
export async function downloadFile(path: string, query: RequestOptions['query'], fallbackName: string, accept = '*/*'): Promise<string | null> {
  const full = buildPath(path, query);
  const desktop = desktopBridge();
  if (desktop) {
    const saved = await desktop.saveDownload(full, fallbackName);
    return saved && baseName(saved);
  }
  const res = await send('GET', full, { headers: { Accept: accept } });
  return saveFile(attachmentName(res, fallbackName), await res.blob());
}

const FORMULA_START = /^[=+\-@\t\r']/;

/** One CSV cell: RFC 4180 quoting and the formula guard of the server's exports (a leading `=`, `+`, `-`, `@`… gets a `'`). */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A CSV file (UTF-8 with BOM so Excel opens it right, CRLF lines) from a header and rows (typed cells as their text). */
export function toCsv(header: string[], rows: readonly (readonly unknown[])[]): Blob {
  const lines = [header, ...rows].map((r) => r.map((v) => csvCell(typeof v === 'object' && v !== null && 'text' in v ? (v as TypedCell).text : v)).join(','));
  return new Blob([`\uFEFF${lines.join('\r\n')}\r\n`], { type: 'text/csv;charset=utf-8' });
}

/** Today's UTC date for file names: `2026-11-02`. */
export const utcDate = (d = new Date()): string => d.toISOString().slice(0, 10);

/**
 * An XLSX workbook of one sheet from a header and rows (SheetJS, loaded only when a table is exported this way):
 * numbers as number cells, typed cells (export-cells.ts) as numbers with their format, everything else as text.
 */
export async function toXlsx(sheetName: string, header: string[], rows: readonly (readonly ExportValue[])[]): Promise<Blob> {
  const XLSX = await import('xlsx');
  const book = XLSX.utils.book_new();
  const sheet = XLSX.utils.aoa_to_sheet([header, ...rows.map((r) => r.map((v) => (isTyped(v) ? v.value : v)))]);
  rows.forEach((r, y) =>
    r.forEach((v, x) => {
      if (isTyped(v)) sheet[XLSX.utils.encode_cell({ r: y + 1, c: x })].z = v.format;
    }),
  );
  XLSX.utils.book_append_sheet(book, sheet, sheetName.slice(0, 31));
  const bytes = XLSX.write(book, { type: 'array', bookType: 'xlsx', compression: true }) as ArrayBuffer;
  return new Blob([bytes], { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' });
}
