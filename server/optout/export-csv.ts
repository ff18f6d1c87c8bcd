import type { Request, Response } from 'express';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { AppContext } from '../context.ts';
import { openDatabase } from '../db/open.ts';
import { csvCell } from './csv-cell.ts';
import type { EntryKind } from './entries.ts';
import { listOf } from './list-access.ts';
import { drained } from '../http/drained.ts';

const CHUNK_CHARS = 64 * 1024;
/** Chunks written without waiting before the export yields to the event loop anyway (other requests go on). */
const CHUNKS_PER_YIELD = 8;

const QUERY: Record<EntryKind, string> = {
  emails: 'SELECT email_address, timestamp, unsubscribed_from FROM optout_emails WHERE list_id = ? ORDER BY timestamp, id',
  domains: 'SELECT domain, timestamp FROM optout_domains WHERE list_id = ? ORDER BY timestamp, id',
};
const HEADER: Record<EntryKind, string> = { emails: 'emailAddress,timestamp,unsubscribedFrom', domains: 'domain,timestamp' };

/**
 * GET …/emails/export or …/domains/export: every entry as CSV (RFC 4180 quoting, formula-injection guard),
 * oldest first, streamed in ~64 KiB chunks from a read connection of its own (iterate() with backpressure),
 * so memory stays flat and the main connection stays free.
 */
export function exportHandler(ctx: AppContext, kind: EntryKind) {
  return async (_req: Request, res: Response) => {
    const list = listOf(res);
    const db = openDatabase(ctx.dbFile, { readonly: true, migrate: false });
    try {
      const rows = db.prepare(QUERY[kind]).raw().iterate(list.id) as IterableIterator<[string, number, string | null]>;
      res.status(200);
      res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      res.setHeader('Content-Disposition', `attachment; filename="optout-${list.id}-${kind}.csv"`);
      res.setHeader('Cache-Control', 'no-store');
      let chunk = `${HEADER[kind]}\r\n`;
      let lastMs = -1;
      let lastIso = '';
      let sinceYield = 0;
      for (const [value, ms, from] of rows) {
        if (ms !== lastMs) [lastMs, lastIso] = [ms, new Date(ms).toISOString()];
        chunk += kind === 'emails' ? `${csvCell(value)},${lastIso},${from === null ? '' : csvCell(from)}\r\n` : `${csvCell(value)},${lastIso}\r\n`;
        if (chunk.length < CHUNK_CHARS) continue;
        const more = res.write(chunk);
        chunk = '';
        if (!more) {
          sinceYield = 0;
          if (!(await drained(res))) return; // client gone: leaving the loop resets the statement
        } else if (++sinceYield === CHUNKS_PER_YIELD) {
          sinceYield = 0;
          await yieldToLoop();
          if (res.destroyed) return;
        }
      }
      res.end(chunk);
    } finally {
      db.close();
    }
  };
}
