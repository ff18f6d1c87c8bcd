/**
 * The bare baseline of the blacklist import (issue 26): a plain Node http handler that parses the same JSON
 * body, keeps the digits of each number, and inserts the rows into the same `blacklist` table (its unique
 * index on (telephone_number, type) drops repeats) in one transaction, one multi-row INSERT per 500 rows —
 * with the engine's own driver and nothing else (better-sqlite3; `pg` on one connection).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import Database from 'better-sqlite3';
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

/** Numbers of the body `{"BlackListItems": [...strings]}` as digits, each with the time as a parameter pair. */
function paramsOf(body: string, now: number): unknown[][] {
  const items = (JSON.parse(body) as { BlackListItems: string[] }).BlackListItems;
  const chunks: unknown[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) chunks.push(items.slice(i, i + CHUNK).flatMap((n) => [n.replace(/\D/g, ''), now]));
  return chunks;
}

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
    const write = db.transaction((chunks: unknown[][]) => chunks.reduce((n: number, c) => n + (c.length === 2 * CHUNK ? full : db.prepare(insertSql(c.length / 2, false))).run(...c).changes, 0));
    return {
      handle: (req, res) => void readBody(req).then((body) => answer(res, write(paramsOf(body, Date.now())))),
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
        await client.query('BEGIN');
        for (const c of paramsOf(body, Date.now())) {
          added += (await client.query({ name: c.length === 2 * CHUNK ? 'bl_full' : undefined, text: insertSql(c.length / 2, true), values: c })).rowCount ?? 0;
        }
        await client.query('COMMIT');
        answer(res, added);
      }),
    close: () => client.end(),
  };
}
