/**
 * `npm run bench`: runs every test/bench/*-bench.ts in its own process, one after another, so each
 * measures its own memory. Each bench prints its own figures; pass names to run a subset
 * (`npm run bench -- optout`). The figures of the benches that succeeded go into the generated table of
 * docs/performance.md (test/bench/performance-doc.ts); `CATI_BENCH_NO_DOC=1` leaves the document alone.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { figuresOf, withFigures, type Figure } from './performance-doc.ts';

const dir = import.meta.dirname;
const doc = join(dir, '..', '..', 'docs', 'performance.md');
const only = process.argv.slice(2);
const benches = readdirSync(dir)
  .filter((f) => f.endsWith('-bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
if (benches.length === 0) {
  console.error(`no benchmark matches ${only.join(' ')}`);
  process.exit(2);
}

/** Runs one bench, echoing its output as it comes, and resolves with its exit code and what it printed. */
function runBench(file: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(dir, file)], { stdio: ['inherit', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      process.stdout.write(chunk);
    });
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

let failed = 0;
const figures: Figure[] = [];
for (const file of benches) {
  console.log(`\n== ${file}`);
  const r = await runBench(file);
  if (r.code !== 0) failed++;
  else figures.push(...figuresOf(file.replace(/\.ts$/, ''), r.output));
}
if (figures.length && process.env.CATI_BENCH_NO_DOC !== '1' && existsSync(doc)) {
  writeFileSync(doc, withFigures(readFileSync(doc, 'utf8'), figures, new Date().toISOString().slice(0, 10)));
  console.log(`\nfigures written to docs/performance.md (${figures.length} rows)`);
}
process.exit(failed ? 1 : 0);
