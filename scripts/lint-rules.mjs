// The textual rules of `npm run lint` (docs/architecture.md#rules), beside the import rules that dependency-cruiser
// checks (.dependency-cruiser.cjs):
//  - one engine seam: no branch on the database engine outside server/db, the composition root (server/server.ts)
//    and the SQL dialect (server/odata/dialect-sql.ts);
//  - the docs are the project's own: no file cites a specification kept outside the repository;
//  - no issue numbers in code, comments or test names: issue trackers live outside the repository, history in git;
//  - the README is a front page: at most 250 lines (the reference lives in docs/, history in git).
// Prints each offence as `file:line rule`, then runs dependency-cruiser and knip; exits 1 when anything failed.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const README_MAX_LINES = 250;

/** Every file under `dir` whose name matches `pattern`, skipping node_modules, dist and dot folders. */
function walk(dir, pattern, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, pattern, out);
    else if (pattern.test(name)) out.push(p);
  }
  return out;
}

const rel = (p) => relative(root, p).split('\\').join('/');
const offences = [];

// One engine seam.
const ENGINE_BRANCH = /instanceof\s+(Sqlite|Pg)Store|\.engine\s*[!=]==|\bname\s*[!=]==\s*['"](sqlite|postgres)['"]|[!=]==\s*['"](sqlite|postgres)['"]/;
const SEAM = (f) => f.startsWith('server/db/') || f === 'server/server.ts' || f === 'server/odata/dialect-sql.ts';
for (const file of walk(join(root, 'server'), /\.(ts|mts|mjs|js)$/)) {
  const f = rel(file);
  if (SEAM(f) || f.endsWith('.d.ts')) continue;
  readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
    if (ENGINE_BRANCH.test(line) && !/^\s*(\/\/|\*)/.test(line)) offences.push(`${f}:${i + 1} branches on the database engine outside server/db (one engine seam)`);
  });
}

// The docs are the project's own.
const cited = [
  ...['server', 'main', 'renderer/src', 'common', 'test', 'scripts'].flatMap((d) => walk(join(root, d), /\.(ts|mts|cts|vue|mjs|js|sql|md)$/)),
  ...walk(join(root, 'docs'), /\.md$/),
  join(root, 'README.md'),
  ...readdirSync(root).filter((n) => /\.(ts|mts|cts|mjs|cjs|js|yml)$/.test(n)).map((n) => join(root, n)),
];
// A migration shipped before the docs became the project's own keeps its old comments: shipped migrations are
// never edited (their text is checked against checksums, test/unit/migration-checksums.test.ts).
const LAST_MIGRATION_WITH_OLD_CITATIONS = 23;
const shippedMigration = (file) => {
  const m = /server\/db\/migrations(-pg)?\/(\d{3})-[^/]+\.sql$/.exec(rel(file));
  return m !== null && Number(m[2]) <= LAST_MIGRATION_WITH_OLD_CITATIONS;
};
for (const file of cited) {
  if (!existsSync(file) || shippedMigration(file)) continue;
  readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
    if (/\bCONTRACT\b/.test(line)) offences.push(`${rel(file)}:${i + 1} cites a specification outside the repository: cite a docs section (docs/cati-api.md#scrubs) instead`);
  });
}

// No issue numbers: say what a thing is about, or cite a docs section. The shipped SQL migrations (pinned by
// checksum) are .sql files, so not read here; this file is skipped in case it spells the pattern out.
const ISSUE_NUMBER = /\b[Ii]ssues? #?\d+/;
const sources = ['server', 'renderer', 'main', 'common', 'test', 'scripts'].flatMap((d) => walk(join(root, d), /\.(ts|mts|cts|mjs|js|cjs|vue)$/));
for (const file of sources) {
  const f = rel(file);
  if (f === 'scripts/lint-rules.mjs') continue;
  readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
    if (ISSUE_NUMBER.test(line)) offences.push(`${f}:${i + 1} names an issue number: say what it is about, or cite a docs section (docs/file.md#anchor)`);
  });
}

// The README is a front page.
const readme = join(root, 'README.md');
const lines = existsSync(readme) ? readFileSync(readme, 'utf8').split('\n').length : 0;
if (lines > README_MAX_LINES) offences.push(`README.md has ${lines} lines, at most ${README_MAX_LINES}: move reference into docs/`);

for (const o of offences) console.log(o);
if (offences.length) console.log(`${offences.length} offence${offences.length === 1 ? '' : 's'} of the textual rules`);

// The import rules (dependency-cruiser) and dead code (knip), each run to its end so every offence is shown.
const bin = (pkg, file) => join(root, 'node_modules', pkg, file);
const tools = [
  [bin('dependency-cruiser', 'bin/dependency-cruise.mjs'), ['--config', '.dependency-cruiser.cjs', '--output-type', 'err', 'server', 'main', 'renderer/src', 'common']],
  [bin('knip', 'bin/knip.js'), ['--no-progress']],
];
const failedTools = tools.filter(([script, args]) => spawnSync(process.execPath, [script, ...args], { cwd: root, stdio: 'inherit' }).status !== 0);
if (offences.length || failedTools.length) process.exit(1);
