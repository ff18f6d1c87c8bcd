/**
 * The bare baseline of the blacklist import (blacklist-bench.ts): a plain Node http handler that parses the same JSON
 * body, normalises each number, and inserts the rows into the same `blacklist` table (its unique index on
 * (telephone_number, type) drops repeats) in one transaction, one multi-row INSERT per 500 rows, with one audit
 * row — with the engine's own driver and nothing else (better-sqlite3; `pg` on one connection).
 * Normalising: the digits; with `?region=CC`, as docs/cati-api.md#phone-region has it for an Equal number, libphonenumber-js's
 * reading when it finds the number possible for the region (country code + national number), else the digits.
 * `?normalise=digits` keeps the digits whatever the region (the figure beside it: libphonenumber-js's own cost).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import Database from 'better-sqlite3';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import pg from 'pg';

const CHUNK = 500;
const insertSql = (n: number, pgStyle: boolean) =>
  `INSERT INTO blacklist (telephone_number, type, comment, created) VALUES ${Array.from({ length: n }, (_, i) =>
    pgStyle ? `($${2 * i + 1}, 'Equal', NULL, $${2 * i + 2})` : "(?, 'Equal', NULL, ?)",
  ).join(', ')} ON CONFLICT DO NOTHING`;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => ok(Buffer.concat(chunks).toString('utf8')));
    req.on('error', fail);
  });
}

/** The number to store: its digits, or under a region libphonenumber-js's country code + national number of a possible number. */
function normalise(text: string, region: CountryCode | null): string {
  const parsed = region ? parsePhoneNumberFromString(text, region) : undefined;
  return parsed?.isPossible() ? `${parsed.countryCallingCode}${parsed.nationalNumber}` : text.replace(/\D/g, '');
}

/** Numbers of the body `{"BlackListItems": [...strings]}` normalised, each with the time as a parameter pair. */
function paramsOf(body: string, now: number, region: CountryCode | null): unknown[][] {
  const items = (JSON.parse(body) as { BlackListItems: string[] }).BlackListItems;
  const chunks: unknown[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) chunks.push(items.slice(i, i + CHUNK).flatMap((n) => [normalise(n, region), now]));
  return chunks;
}

/** The region of the request's `?region=CC`, or null (also with `normalise=digits`). */
function regionOf(req: IncomingMessage): CountryCode | null {
  const query = new URL(req.url ?? '/', 'http://bare').searchParams;
  return query.get('normalise') === 'digits' ? null : ((query.get('region') as CountryCode | null) ?? null);
}

const AUDIT_SQL = (pgStyle: boolean) =>
  `INSERT INTO audit_log (time, actor, action, entity, entity_id, changes) VALUES (${pgStyle ? '$1, $2, $3, $4, NULL, $5' : '?, ?, ?, ?, NULL, ?'})`;
const auditParams = (now: number, added: number, total: number) => [now, 'bench', 'imported', 'blacklist', JSON.stringify({ Added: added, Duplicates: total - added, Invalid: 0 })];

/** The bare import handler over the SQLite file or the PostgreSQL URL; `close` releases the connection. */
export async function bareImportHandler(
  target: { file: string } | { url: string },
): Promise<{ handle(req: IncomingMessage, res: ServerResponse): void; close(): Promise<void> }> {
  const answer = (res: ServerResponse, added: number) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ Added: added }));
  if ('file' in target) {
    const db = new Database(target.file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 10000');
    const full = db.prepare(insertSql(CHUNK, false));
    const audit = db.prepare(AUDIT_SQL(false));
    const write = db.transaction((chunks: unknown[][], now: number) => {
      const added = chunks.reduce((n: number, c) => n + (c.length === 2 * CHUNK ? full : db.prepare(insertSql(c.length / 2, false))).run(...c).changes, 0);
      audit.run(...auditParams(now, added, chunks.reduce((n, c) => n + c.length / 2, 0)));
      return added;
    });
    return {
      handle: (req, res) =>
        void readBody(req).then((body) => {
          const now = Date.now();
          answer(res, write(paramsOf(body, now, regionOf(req)), now));
        }),
      close: async () => {
        db.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  return {
    handle: (req, res) =>
      void readBody(req).then(async (body) => {
        let added = 0;
        const now = Date.now();
        const chunks = paramsOf(body, now, regionOf(req));
        await client.query('BEGIN');
        for (const c of chunks) {
          added += (await client.query({ name: c.length === 2 * CHUNK ? 'bl_full' : undefined, text: insertSql(c.length / 2, true), values: c })).rowCount ?? 0;
        }
        await client.query({ name: 'bl_audit', text: AUDIT_SQL(true), values: auditParams(now, added, chunks.reduce((n, c) => n + c.length / 2, 0)) });
        await client.query('COMMIT');
        answer(res, added);
      }),
    close: () => client.end(),
  };
}
