/**
 * The cold-start bench's baseline: a bare server that opens the same database with better-sqlite3 and listens on
 * 127.0.0.1, then prints the same "listening on" line. Plain JavaScript, so the bench runs it both ways: under
 * `node --import tsx` (the baseline: the TypeScript loader in place, as `npm run serve` had it) and under
 * plain `node` (as the compiled server runs).
 */
import Database from 'better-sqlite3';
import { createServer } from 'node:http';
import { join } from 'node:path';

const db = new Database(join(process.argv[2], 'cati.sqlite'));
db.pragma('journal_mode = WAL');
db.prepare('select count(*) from sqlite_master').get();
const server = createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
});
process.on('SIGTERM', () => server.close(() => { db.close(); process.exit(0); }));
