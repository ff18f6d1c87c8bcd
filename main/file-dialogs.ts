/**
 * Native save dialogs for the renderer's files (preload bridge `saveDownload`, `saveFile`). Exports are streamed by
 * the main process from the API into the chosen file (never held whole in memory) through a `.partial` file that
 * gets the chosen name only when the whole answer arrived; a failed export leaves no file behind.
 */
import { dialog, type BrowserWindow } from 'electron';
import { createWriteStream } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { openRequest, type PinnedAgent } from './pinned-https.ts';

/** Where and how the main process reaches the API the window uses (local server or client-mode proxy). */
export interface ApiAccess {
  baseUrl: string;
  apiKey: string;
  /** For https on loopback (the embedded server with TLS): pinned to its own certificate. */
  agent?: PinnedAgent;
}

/** API paths the renderer may ask the main process to download. */
const DOWNLOADABLE = /^\/(cati|optout|admin)\/[^\s]*$/;

const FILTERS: Record<string, { name: string; extensions: string[] }> = {
  '.csv': { name: 'CSV', extensions: ['csv'] },
  '.xlsx': { name: 'Excel workbook', extensions: ['xlsx'] },
  '.json': { name: 'JSON', extensions: ['json'] },
  '.txt': { name: 'Text', extensions: ['txt'] },
};

/** A file name safe to propose (no directories, no control or reserved characters). */
export function safeFileName(name: string, fallback = 'export'): string {
  // eslint-disable-next-line no-control-regex
  const cleaned = basename(String(name)).replace(/[\u0000-\u001f<>:"/\\|?*]/g, '_').trim();
  return cleaned && cleaned !== '.' && cleaned !== '..' ? cleaned.slice(0, 200) : fallback;
}

async function askWhere(win: BrowserWindow | null, suggestedName: string): Promise<string | null> {
  const name = safeFileName(suggestedName);
  const filter = FILTERS[extname(name).toLowerCase()];
  const options = { title: 'Save as', defaultPath: name, filters: [...(filter ? [filter] : []), { name: 'All files', extensions: ['*'] }] };
  const answer = win ? await dialog.showSaveDialog(win, options) : await dialog.showSaveDialog(options);
  return answer.canceled || !answer.filePath ? null : answer.filePath;
}

/** The API's error message from a failed answer (`{message}` or OData `{error:{message}}`), else the status. */
async function failureMessage(res: NodeJS.ReadableStream & { statusCode?: number }): Promise<string> {
  let text = '';
  for await (const chunk of res) {
    text += String(chunk);
    if (text.length > 64 * 1024) break;
  }
  try {
    const body = JSON.parse(text) as { message?: string; error?: { message?: string } };
    const message = body.error?.message ?? body.message;
    if (message) return `${message} (HTTP ${res.statusCode})`;
  } catch {
    // not JSON
  }
  return `The server answered ${res.statusCode}`;
}

/**
 * Asks where to save, then streams `GET path` from the API into that file. Answers the file, or null when the
 * user cancelled; throws with the server's message when the export fails (and no file is left).
 */
export async function saveDownload(win: BrowserWindow | null, api: ApiAccess, path: string, suggestedName: string): Promise<string | null> {
  if (typeof path !== 'string' || !DOWNLOADABLE.test(path)) throw new Error('Only API exports can be downloaded');
  const file = await askWhere(win, suggestedName);
  if (!file) return null;
  const { req, response } = openRequest(new URL(path, api.baseUrl), {
    headers: { Authorization: `Bearer ${api.apiKey}`, Accept: '*/*' },
    agent: api.agent,
  });
  req.end();
  const res = await response;
  if ((res.statusCode ?? 500) >= 400) throw new Error(await failureMessage(res));
  const partial = `${file}.partial`;
  try {
    await pipeline(res, createWriteStream(partial));
    await rename(partial, file);
  } catch (err) {
    await rm(partial, { force: true });
    const code = (err as { code?: unknown }).code;
    const why = code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG' ? 'the disk is full; free some space and try again' : (err as Error).message;
    throw new Error(`The export could not be saved to ${file}: ${why}`, { cause: err });
  }
  return file;
}

/** Asks where to save content the page made (a CSV of a table) and writes it; null when cancelled. */
export async function saveContent(win: BrowserWindow | null, suggestedName: string, content: Uint8Array): Promise<string | null> {
  if (!(content instanceof Uint8Array)) throw new Error('The content must be bytes');
  const file = await askWhere(win, suggestedName);
  if (!file) return null;
  await writeFile(file, content);
  return file;
}
