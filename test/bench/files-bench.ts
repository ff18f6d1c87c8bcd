/**
 * File intake benchmark (`npm run bench -- files`, or `node --import tsx test/bench/files-bench.ts [rows]`,
 * docs/files.md#speed). Writes a CSV of FILES_ROWS rows (default 1,000,000: id, name, phone), once without quotes
 * and once with every name quoted and holding the delimiter, and reads each in this process three ways:
 * - the intake's reader (server/files/text-rows.ts: encoding check, the delimiter rule, the RFC 4180 reader,
 *   1 MiB chunks) and its row count (the scrubs' counting pass);
 * - csv-parse (the maintained streaming parser, a devDependency) over a file stream;
 * - the bare baseline: the whole file as one Latin-1 string, split on LF and then on `,` (no quotes, no
 *   encodings, all in memory: a floor no correct reader can beat by much).
 * Each figure is rows/s with its ratio to the bare baseline of the same run, and the best of three rounds.
 */
import { parse } from 'csv-parse';
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTextFile } from '../../server/files/text-rows.ts';
import { report } from './bench-tools.ts';

const ROWS = Number(process.argv[2] ?? process.env.FILES_ROWS ?? 1_000_000);
const ROUNDS = 3;
const dir = mkdtempSync(join(tmpdir(), 'files-bench-'));

function writeCsv(name: string, quoted: boolean): string {
  const path = join(dir, name);
  const parts: string[] = ['Id,Name,Phone\r\n'];
  for (let i = 0; i < ROWS; i++) parts.push(quoted ? `${i},"Doe, Person ${i}",+31 20 ${String(5_000_000 + i)}\r\n` : `${i},Person ${i},0205${String(100_000 + i)}\r\n`);
  writeFileSync(path, parts.join(''));
  return path;
}

function bare(path: string): number {
  let n = 0;
  for (const line of readFileSync(path, 'latin1').split('\n')) if (line.split(',').length > 0 && line !== '') n++;
  return n;
}

function intake(path: string): number {
  let n = 0;
  for (const batch of openTextFile(path, false).batches()) n += batch.length;
  return n;
}

async function csvParse(path: string): Promise<number> {
  let n = 0;
  for await (const _record of createReadStream(path).pipe(parse({ relax_column_count: true }))) n++;
  return n;
}

/** The best rows/s of ROUNDS runs of `read` (each must see every row and the header). */
async function best(label: string, read: () => number | Promise<number>): Promise<number> {
  let top = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    const rows = await read();
    const seconds = (performance.now() - t0) / 1000;
    if (rows !== ROWS + 1) throw new Error(`${label}: read ${rows} rows, not ${ROWS + 1}`);
    top = Math.max(top, ROWS / seconds);
  }
  return top;
}

try {
  for (const quoted of [false, true]) {
    const path = writeCsv(quoted ? 'quoted.csv' : 'plain.csv', quoted);
    const kind = quoted ? 'quoted cells holding the delimiter' : 'no quotes';
    const base = await best('bare', () => bare(path));
    const ours = await best('intake', () => intake(path));
    const counted = await best('intake count', () => openTextFile(path, false).count());
    const theirs = await best('csv-parse', () => csvParse(path));
    console.log(`  ${ROWS.toLocaleString('en-US')} rows, ${kind}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    report(`  bare split (${kind}, whole file in memory)`, base, 'rows/s', null, 'baseline', null);
    report(`  intake reader (${kind})`, ours, 'rows/s', base, '≥ csv-parse', ours >= theirs);
    report(`  intake row count (${kind})`, counted, 'rows/s', base, 'reported', null);
    report(`  csv-parse (${kind}, streaming)`, theirs, 'rows/s', base, 'reported', null);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
