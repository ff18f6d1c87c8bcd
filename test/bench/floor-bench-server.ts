/**
 * The server side of `floor-bench.ts`, in its own process so its CPU time is its own: the real server over the
 * given data dir (serving the built renderer), and beside it a bare Node http server answering the same
 * `/cati/floor` SELECT (the baseline). Prints one JSON line: both URLs, keys, a UI link; exits on SIGTERM.
 */
import { createServer } from 'node:http';
import { databaseFile, defaultConfig } from '../../server/config.ts';
import { floorParams } from '../../server/cati/floor-sets.ts';
import { floorModel } from '../../server/cati/floor-models.ts';
import { sqliteDialect } from '../../server/db/dialect.ts';
import { openDatabase } from '../../server/db/open.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';
import { selectList } from '../../server/odata/collection-query.ts';
import { startServer } from '../../server/server.ts';

const [dataDir, staticDir] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: floor-bench-server.ts DATA_DIR [STATIC_DIR]');
const KEY = 'bench-key-0123456789abcdef';
const server = await startServer(defaultConfig({ port: 0, host: '127.0.0.1', dataDir, apiKey: KEY, staticDir: staticDir ?? null }));
const keys = server.ctx.keys;
// /events allows 50 streams per key: one supervisor key per 40 subscribers.
const supervisors: string[] = [];
for (let i = 0; i < 6; i++) supervisors.push((await keys.create(`bench-supervisor-${i}`, ['cati_administrate'])).key);
const dialer = (await keys.create('bench-dialer', ['cati_integrate'])).key;

const db = openDatabase(databaseFile(dataDir));
const store = new SqliteStore(db, databaseFile(dataDir));
const select = db.prepare(`SELECT ${selectList(floorModel(sqliteDialect))} FROM ${floorModel(sqliteDialect).from} ORDER BY f.SessionId LIMIT ? OFFSET 0`);
const bare = createServer(async (req, res) => {
  if (req.headers.authorization !== `Bearer ${KEY}`) {
    res.writeHead(401).end();
    return;
  }
  const rows = select.all(...(await floorParams(store, Date.now(), 12)), 10000);
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ value: rows }));
});
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
const address = bare.address();
const bareUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

process.stdout.write(`${JSON.stringify({ url: server.url, bareUrl, key: KEY, supervisors, dialer, uiLink: `${server.url}/#token=${await keys.ui.mintToken()}` })}\n`);
process.on('SIGTERM', () => {
  bare.close();
  db.close();
  void server.close().then(() => process.exit(0));
});
