// `node scripts/fetch-electron-sqlite.mjs [--electron VERSION] [--abi ABI] [--out FILE]` (npm run native:electron;
// defaults: the installed electron package, .native/electron/better_sqlite3.node):
// puts better-sqlite3's native addon built for Electron's ABI at FILE, never touching node_modules/better-sqlite3
// (its Node build is what `npm test` loads). First the prebuilt binary the better-sqlite3 project publishes for
// that Electron (prebuild-install, run in a scratch copy of the package so it unpacks there); if there is none,
// a build from source for Electron with node-gyp in the same scratch copy (needs a C++ toolchain). The result
// is checked for the right ABI and moved into place atomically. Exit 0 on success; otherwise the last stderr
// line says why.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { bindingAbi, electronBindingFile, electronInfo, electronPackageDir } from './desktop-runtime.mjs';

const require = createRequire(import.meta.url);
const { values } = parseArgs({ options: { electron: { type: 'string' }, abi: { type: 'string' }, out: { type: 'string' } } });
const installed = electronPackageDir() ? electronInfo(electronPackageDir()) : null;
const electronVersion = values.electron ?? installed?.version;
if (!electronVersion) {
  console.error('usage: fetch-electron-sqlite.mjs [--electron VERSION] [--abi ABI] [--out FILE] (no electron package installed)');
  process.exit(2);
}
const abi = values.abi ?? (values.electron ? String(require('node-abi').getAbi(electronVersion, 'electron')) : installed.abi);
const out = values.out ?? electronBindingFile();
const packageDir = dirname(require.resolve('better-sqlite3/package.json'));
const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));

// The child tools must not see npm's settings for this project's own Node build (npm_config_nodedir would make
// node-gyp build against Node's headers; npm_package_* would make prebuild-install think it runs from git).
const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^npm_(config_(nodedir|build_from_source|runtime|target|disturl)|package_)/i.test(k)),
);

mkdirSync(dirname(out), { recursive: true });
const scratch = mkdtempSync(join(dirname(out), '.fetch-'));
const built = join(scratch, 'build', 'Release', 'better_sqlite3.node');

function run(command, args) {
  const r = spawnSync(process.execPath, [command, ...args], { cwd: scratch, env, stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8', timeout: 9 * 60_000 });
  if (r.stderr) process.stderr.write(r.stderr);
  const lines = String(r.stderr ?? '').split(/\r?\n/);
  // prebuild-install: its last warning; node-gyp: the message of its error.
  const said =
    /gyp ERR! stack Error: (.*)/.exec(lines.find((l) => l.includes('gyp ERR! stack Error:')) ?? '')?.[1] ??
    lines.filter((l) => /prebuild-install warn/.test(l)).at(-1)?.replace(/^prebuild-install warn (install )?/, '') ??
    '';
  return { ok: r.status === 0, said: /network connectivity/.test(r.stderr ?? '') ? "Electron's headers cannot be downloaded" : said.trim() };
}

try {
  console.log(`better-sqlite3 ${version} for Electron ${electronVersion} (ABI ${abi}, ${platform()}-${arch()})`);
  writeFileSync(join(scratch, 'package.json'), readFileSync(join(packageDir, 'package.json')));
  const prebuildBin = join(dirname(require.resolve('prebuild-install/package.json')), 'bin.js');
  const prebuilt = run(prebuildBin, ['--runtime', 'electron', '--target', electronVersion, '--arch', arch(), '--platform', platform(), '--verbose']);
  let source = 'prebuilt binary (prebuild-install)';
  if (!prebuilt.ok || !existsSync(built)) {
    console.log('no prebuilt binary could be downloaded; building from source for Electron (node-gyp)…');
    for (const part of ['binding.gyp', 'src', 'deps']) cpSync(join(packageDir, part), join(scratch, part), { recursive: true });
    const gyp = join(dirname(require.resolve('node-gyp/package.json')), 'bin', 'node-gyp.js');
    const compiled = run(gyp, ['rebuild', '--release', `--target=${electronVersion}`, '--runtime=electron', '--dist-url=https://electronjs.org/headers']);
    if (!compiled.ok || !existsSync(built)) {
      throw new Error(`no prebuilt binary (${prebuilt.said || 'download failed'}) and no build from source (${compiled.said || 'node-gyp failed'})`);
    }
    source = 'built from source (node-gyp)';
  }
  const found = bindingAbi(built);
  if (found !== abi) throw new Error(`the fetched build is for ABI ${found ?? 'unknown'}, not ${abi}`);
  renameSync(built, `${out}.tmp`);
  renameSync(`${out}.tmp`, out);
  writeFileSync(join(dirname(out), 'binding.json'), `${JSON.stringify({ betterSqlite3: version, electron: electronVersion, abi, platform: platform(), arch: arch(), source }, null, 2)}\n`);
  console.log(`${out}: ${source}, ABI ${abi}`);
} catch (err) {
  console.error(`could not fetch better-sqlite3 for Electron ${electronVersion}: ${err.message}`);
  process.exitCode = 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
