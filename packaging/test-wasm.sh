#!/usr/bin/env bash
# The npm WebAssembly fallback as a user gets it: `hrwhash` and `hrwhash-wasm32-wasi`, packed by
# bindings-node/scripts/pack.js from a wasm32-wasip1-threads `napi build`, installed into an empty
# project with no native addon and no Rust on PATH, then the whole Node suite (bindings-node/test)
# run there with NAPI_RS_FORCE_WASI=error, so that every answer comes from the .wasm.
# Usage: packaging/test-wasm.sh (after `make -C bindings-node wasm`)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node=$(command -v node)
bare="/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin"

node bindings-node/scripts/pack.js --only platform --suffix wasm32-wasi "$work/pkgs" >/dev/null
node bindings-node/scripts/pack.js --only main --platforms wasm32-wasi "$work/pkgs" >/dev/null
version=$(node -p "require('./bindings-node/package.json').version")
main=$work/pkgs/hrwhash-$version.tgz
wasm=$work/pkgs/hrwhash-wasm32-wasi-$version.tgz

# The main package names the WebAssembly package, which declares what npm needs to place it.
tar -xzOf "$main" package/package.json | node -e '
  const p = JSON.parse(require("fs").readFileSync(0, "utf8"));
  if (p.optionalDependencies["hrwhash-wasm32-wasi"] !== p.version) throw new Error("hrwhash does not name hrwhash-wasm32-wasi");'
tar -tzf "$wasm" | sort >"$work/wasm-files"
for f in hrwhash.wasm32-wasi.wasm hrwhash.wasi.cjs hrwhash.wasi.d.cts hrwhash.wasi-browser.js wasi-worker.mjs \
  wasi-worker-browser.mjs package.json README.md LICENSE-MIT LICENSE-APACHE THIRD-PARTY-LICENSES.txt; do
  grep -qx "package/$f" "$work/wasm-files" || { echo "hrwhash-wasm32-wasi lacks $f" >&2; exit 1; }
done
tar -xzOf "$wasm" package/THIRD-PARTY-LICENSES.txt | grep -q '^emnapi ' || { echo "hrwhash-wasm32-wasi lacks emnapi's licence" >&2; exit 1; }

# The suite reads ../../conformance and the package's sources (README.md, index.d.ts, src/) from
# beside test/, as in the repository; `require('hrwhash')` finds the installed package.
project=$work/project/bindings-node
mkdir -p "$project"
ln -s "$root/conformance" "$work/project/conformance"
cp -r bindings-node/test bindings-node/src bindings-node/README.md bindings-node/index.d.ts bindings-node/types-header.d.ts "$project/"
# As a user installs it from the registry (`npm install --cpu=wasm32 hrwhash`): the WebAssembly
# package as an optional dependency, which npm installs only for --cpu=wasm32 (its cpu field), here
# from the tarball. --prefer-offline: its runtime dependencies are the repository's
# devDependencies, in npm's cache after `npm ci`.
cat >"$project/package.json" <<EOF
{"name": "wasm-test", "version": "1.0.0", "private": true,
 "dependencies": {"hrwhash": "file:$main"}, "optionalDependencies": {"hrwhash-wasm32-wasi": "file:$wasm"}}
EOF
(cd "$project" && PATH="$(dirname "$node"):$bare" npm install --ignore-scripts --cpu=wasm32 --prefer-offline \
  --no-audit --no-fund --loglevel=error)
[ -f "$project/node_modules/hrwhash-wasm32-wasi/hrwhash.wasm32-wasi.wasm" ] || { echo "npm did not install hrwhash-wasm32-wasi" >&2; exit 1; }
for n in hrwhash-linux-x64-gnu hrwhash-linux-arm64-gnu hrwhash-darwin-x64 hrwhash-darwin-arm64 hrwhash-win32-x64-msvc; do
  [ ! -e "$project/node_modules/$n" ] || { echo "a native addon ($n) was installed" >&2; exit 1; }
done
# What the suite itself imports (the test's devDependencies), from the repository's node_modules.
for d in fast-check hashring skeleton-rendezvous typescript @types; do
  ln -s "$root/bindings-node/node_modules/$d" "$project/node_modules/$d"
done

(cd "$project" && PATH="$(dirname "$node"):$bare" NAPI_RS_FORCE_WASI=error "$node" -e '
  const h = require("hrwhash");
  const loader = require.resolve("hrwhash-wasm32-wasi");
  // Which files loaded, since the package exports no marker of its build: the WebAssembly
  // loader, and no native addon.
  const loaded = Object.keys(require.cache);
  if (!loaded.includes(loader)) throw new Error(`${loader} did not load`);
  const addons = loaded.filter((f) => f.endsWith(".node"));
  if (addons.length) throw new Error(`a native addon loaded: ${addons.join(", ")}`);
  if (typeof h.Placement !== "function") throw new Error("hrwhash exports no Placement");
  console.log(`hrwhash loads ${loader}`);')
cd "$project" && PATH="$(dirname "$node"):$bare" NAPI_RS_FORCE_WASI=error "$node" --test test/
