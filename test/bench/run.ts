/**
 * `npm run bench`: runs every test/bench/*-bench.ts in its own process, one after another, so each
 * measures its own memory. Each bench prints its own figures; pass names to run a subset
 * (`npm run bench -- optout`).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const dir = import.meta.dirname;
const only = process.argv.slice(2);
const benches = readdirSync(dir)
  .filter((f) => f.endsWith('-bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
if (benches.length === 0) {
  console.error(`no benchmark matches ${only.join(' ')}`);
  process.exit(2);
}
let failed = 0;
for (const file of benches) {
  console.log(`\n== ${file}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(dir, file)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
