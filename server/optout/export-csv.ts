import type { Request, Response } from 'express';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { AppContext } from '../context.ts';
import { csvCell } from '../lib/csv-cell.ts';
import type { EntryKind } from './entries.ts';
import { listOf } from './list-access.ts';
import { drained } from '../http/drained.ts';

const CHUNK_CHARS = 64 * 1024;
/** Chunks written without waiting before the export yields to the event loop anyway (other requests go on). */
const CHUNKS_PER_YIELD = 8;
/** Rows read from the store at a time. */
const ROWS_PER_READ = 2000;

const QUERY: Record<EntryKind, string> = {
  emails: 'SELECT email_address, timestamp, unsubscribed_from FROM optout_emails WHERE list_id = ? ORDER BY timestamp, id',
  domains: 'SELECT domain, timestamp FROM optout_domains WHERE list_id = ? ORDER BY timestamp, id',
};
const HEADER: Record<EntryKind, string> = { emails: 'emailAddress,timestamp,unsubscribedFrom', domains: 'domain,timestamp' };

/**
 * GET …/emails/export or …/domains/export: every entry as CSV (RFC 4180 quoting, formula-injection guard),
 * oldest first, streamed in ~64 KiB chunks read through `store.chunks` (a read connection of its own on SQLite,
 * a cursor on PostgreSQL) with backpressure, so memory stays flat and the main connection stays free.
 */
export function exportHandler(ctx: AppContext, kind: EntryKind) {
  return async (_req: Request, res: Response) => {
    const list = listOf(res);
    // The headers go out with the first bytes, after the first read: a failing read still gets the error answer.
    const begin = () => {
      if (res.headersSent) return;
      res.status(200);
      res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      res.setHeader('Content-Disposition', `attachment; filename="optout-${list.id}-${kind}.csv"`);
      res.setHeader('Cache-Control', 'no-store');
    };
    let chunk = `${HEADER[kind]}\r\n`;
    let lastMs = -1;
    let lastIso = '';
    let sinceYield = 0;
    for await (const rows of ctx.store.chunks(QUERY[kind], [list.id], ROWS_PER_READ)) {
      for (const [value, rawMs, from] of rows as [string, number, string | null][]) {
        const ms = Number(rawMs);
        if (ms !== lastMs) [lastMs, lastIso] = [ms, new Date(ms).toISOString()];
        chunk += kind === 'emails' ? `${csvCell(value)},${lastIso},${from === null ? '' : csvCell(from)}\r\n` : `${csvCell(value)},${lastIso}\r\n`;
        if (chunk.length < CHUNK_CHARS) continue;
        begin();
        const more = res.write(chunk);
        chunk = '';
        if (!more) {
          sinceYield = 0;
          if (!(await drained(res))) return; // client gone: leaving the loop releases the reader
        } else if (++sinceYield === CHUNKS_PER_YIELD) {
          sinceYield = 0;
          await yieldToLoop();
          if (res.destroyed) return;
        }
      }
    }
    begin();
    res.end(chunk);
  };
}
