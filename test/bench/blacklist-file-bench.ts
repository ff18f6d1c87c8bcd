/**
 * Blacklist file import benchmark (`npm run bench -- blacklist-file`, docs/cati-api.md#blacklist-imports):
 * a CSV of BL_FILE_ROWS numbers (default 1,000,000, national NL numbers) imported with region NL through the
 * real job (parse worker, normalisation, one transaction with the audit row, the /events changes) in process
 * on SQLite, against a bare import in the same run: the same file's lines normalised with libphonenumber-js
 * (country code + national number) and inserted with better-sqlite3 in one transaction. Reports rows/s, the
 * ratio (goal ≥ 0.8) and the process's peak RSS while the job runs (goal < 400 MB; the job runs first). Bounded: each side runs once, at most
 * BL_FILE_MAX_S seconds (default 300).
 */
import { createRequire } from 'node:module';
import { closeSync, copyFileSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { BlacklistImports } from '../../server/cati/blacklist-file-import.ts';
import { defaultConfig } from '../../server/config.ts';
import type { AppContext } from '../../server/context.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';
import { report } from './bench-tools.ts';

const ROWS = Number(process.env.BL_FILE_ROWS ?? 1_000_000);
const MAX_MS = Number(process.env.BL_FILE_MAX_S ?? 300) * 1000;
const dir = mkdtempSync(join(tmpdir(), 'blacklist-file-bench-'));
const numberOf = (i: number) => (i % 4 === 0 ? `020 ${String(1_000_000 + i).slice(-7)}` : `06 ${String(10_000_000 + i * 7).slice(-8)}`);

/** Bare: the file's lines normalised with libphonenumber-js and inserted in one transaction (its memory is garbage once it returns). */
function bareImport(source: string): number {
  const lib = createRequire(import.meta.url)('libphonenumber-js') as typeof import('libphonenumber-js');
  const bareDb = new Database(join(dir, 'bare.sqlite'));
  bareDb.pragma('journal_mode = WAL');
  bareDb.exec('CREATE TABLE blacklist (id INTEGER PRIMARY KEY, telephone_number TEXT NOT NULL, type TEXT NOT NULL, comment TEXT, created INTEGER NOT NULL, UNIQUE (telephone_number, type))');
  const t0 = performance.now();
  const text = readFileSync(source, 'utf8').split('\r\n');
  const insert = bareDb.prepare("INSERT OR IGNORE INTO blacklist (telephone_number, type, comment, created) VALUES (?, 'Equal', NULL, ?)");
  const now = Date.now();
  bareDb.transaction(() => {
    for (let i = 1; i < text.length; i++) {
      if (text[i] === '') continue;
      const p = lib.parsePhoneNumberFromString(text[i]!, 'NL');
      insert.run(p && p.isPossible() ? `${p.countryCallingCode}${p.nationalNumber}` : text[i]!.replace(/\D/g, ''), now);
    }
  })();
  const rate = ROWS / ((performance.now() - t0) / 1000);
  bareDb.close();
  return rate;
}

try {
  const source = join(dir, 'numbers.csv');
  const fd = openSync(source, 'w'); // written in chunks: a million lines held at once would stay in the RSS measured below
  writeSync(fd, 'Number\r\n');
  for (let i = 0; i < ROWS; i += 10_000) writeSync(fd, Array.from({ length: Math.min(10_000, ROWS - i) }, (_, k) => `${numberOf(i + k)}\r\n`).join(''));
  closeSync(fd);

  // The job, in process, first: the peak RSS is this process's, and no bare's garbage is counted in it.
  const store = SqliteStore.open(join(dir, 'cati.sqlite'));
  const ctx = { store, dbFile: join(dir, 'cati.sqlite'), config: defaultConfig({ dataDir: dir }) } as unknown as AppContext;
  const upload = join(dir, 'upload.csv');
  copyFileSync(source, upload);
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 25);
  const t1 = performance.now();
  const principal = { keyId: 1, name: 'bench', permissions: new Set(['cati_administrate']) } as never;
  const job = await new BlacklistImports(ctx).start(principal, { keyId: 1, name: 'bench' } as never, { filePath: upload, fileName: 'numbers.csv', format: 'text', region: 'NL' });
  while (job.state === 'running' && performance.now() - t1 < MAX_MS) await new Promise((resolve) => setTimeout(resolve, 20));
  const seconds = (performance.now() - t1) / 1000;
  clearInterval(sampler);
  if (job.state !== 'done') throw new Error(`the import ended ${job.state}: ${job.error ?? 'timed out'}`);
  const rate = ROWS / seconds;
  const bareRate = bareImport(source);
  console.log(`load ${loadavg().map((l) => l.toFixed(1)).join(' ')}; ${ROWS.toLocaleString('en-US')} rows, added ${job.added.toLocaleString('en-US')}, duplicates ${job.duplicates}, invalid ${job.invalid}`);
  report('Blacklist file import (SQLite, region NL)', rate, 'rows/s', bareRate, '≥ 0.8 of bare', rate / bareRate >= 0.8);
  report('Blacklist file import peak RSS (process, worker included)', peak / 1024 / 1024, 'MB', null, '< 400 MB', peak / 1024 / 1024 < 400);
  await store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
