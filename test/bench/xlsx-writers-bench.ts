/**
 * Why collection exports write XLSX with exceljs and not SheetJS (docs/architecture.md#xlsx): a `$format=xlsx`
 * export may hold 1,000,000 rows and must keep the server's memory flat. Each writer produces the same sheet of
 * ROWS rows × 8 columns (numbers, text, a time) into a temp file, in a child process of its own, and the peak RSS
 * growth over the child's start is measured: exceljs's streaming `WorkbookWriter`, and SheetJS (`xlsx`), whose
 * writer builds the whole workbook in memory (it has streaming writers for CSV, HTML and XML 2003, not for XLSX).
 * `XLSX_BENCH_ROWS` (default 100000,300000) sets the sizes; each child is stopped after 180 s.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';

const require = createRequire(import.meta.url);
const COLUMNS = ['Id', 'Time', 'SurveyId', 'InterviewerId', 'TelephoneNumber', 'ExtendedStatus', 'Duration', 'WaitingTime'];

function row(i: number): unknown[] {
  return [i, new Date(1_764_000_000_000 + i * 1000), `p${1000 + (i % 40)}`, i % 500, `3120${String(5_550_000 + i).padStart(7, '0')}`, i % 12, i % 600, i % 30];
}

async function writeExcelJs(file: string, rows: number): Promise<void> {
  const ExcelJS = require('exceljs') as typeof import('exceljs');
  const out = createWriteStream(file);
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const sheet = wb.addWorksheet('callhistory');
  sheet.addRow(COLUMNS).commit();
  for (let i = 0; i < rows; i++) {
    sheet.addRow(row(i)).commit();
    if (i % 5000 === 0) await new Promise((r) => setImmediate(r));
  }
  sheet.commit();
  await wb.commit();
  if (!out.closed) await once(out, 'close');
}

function writeSheetJs(file: string, rows: number): void {
  const XLSX = require('xlsx') as typeof import('xlsx');
  const aoa: unknown[][] = [COLUMNS];
  for (let i = 0; i < rows; i++) aoa.push(row(i));
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(aoa, { cellDates: true }), 'callhistory');
  XLSX.writeFile(wb, file, { compression: true });
}

async function child(lib: string, rows: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'xlsx-bench-'));
  const file = join(dir, 'out.xlsx');
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const t0 = performance.now();
  if (lib === 'exceljs') await writeExcelJs(file, rows);
  else writeSheetJs(file, rows);
  const seconds = (performance.now() - t0) / 1000;
  peak = Math.max(peak, process.memoryUsage().rss);
  clearInterval(timer);
  const size = statSync(file).size;
  rmSync(dir, { recursive: true, force: true });
  console.log(JSON.stringify({ growthMb: (peak - base) / 1048576, seconds, sizeMb: size / 1048576 }));
}

if (process.argv[2] === '--child') {
  await child(process.argv[3]!, Number(process.argv[4]));
} else {
  const sizes = (process.env.XLSX_BENCH_ROWS ?? '100000,300000').split(',').map(Number);
  for (const rows of sizes) {
    for (const lib of ['exceljs', 'xlsx']) {
      const r = spawnSync(process.execPath, ['--import', 'tsx', '--max-old-space-size=3072', import.meta.filename, '--child', lib, String(rows)], { encoding: 'utf8', timeout: 180_000 });
      const line = r.stdout.trim().split('\n').at(-1) ?? '';
      let text: string;
      try {
        const m = JSON.parse(line) as { growthMb: number; seconds: number; sizeMb: number };
        text = `${m.growthMb.toFixed(0)} MB RSS growth, ${m.seconds.toFixed(1)} s, file ${m.sizeMb.toFixed(1)} MB`;
      } catch {
        text = `did not finish (${r.signal ?? `exit ${r.status}`}): ${(r.stderr ?? '').trim().split('\n').at(-1) ?? ''}`;
      }
      console.log(`XLSX ${rows.toLocaleString('en-US')} rows, ${lib === 'xlsx' ? 'SheetJS' : 'exceljs streaming'}: ${text}`);
    }
  }
}
