#!/usr/bin/env bash
# Same-process A/B of the core at a git revision (base) against this checkout (new); see
# bench/ab/main.rs.
#
#   bash bench/ab.sh main                 # N = 5, 100, 1000, 10000
#   bash bench/ab.sh main 5,100           # other N
#   AB_ONLY_BUILD=1 bash bench/ab.sh main # print the binary's path (for callgrind)
#   AB_OPS=owners AB_ROUNDS=61 AB_KEYS=16384 bash bench/ab.sh main 100
#                                         # the batch owners_into over Arrow-style offsets only
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rev="${1:?usage: bench/ab.sh <git revision> [N,N,...]}"
work="${AB_DIR:-/tmp/hrwhash-ab}"
rm -rf "$work/base" "$work/ab"
mkdir -p "$work/base" "$work/ab/src"
# -m: the files get the time of extraction, not of the commit; with the commit's time, a revision
# older than the last one built here would look unchanged to cargo, and the old build would run.
git -C "$repo" archive "$rev" core Cargo.toml | tar -x -m -C "$work/base"
# Outside its workspace: spell out what the workspace gave, under a version of its own.
sed -n '/^\[workspace.package\]/,/^\[/{/^\(edition\|license\|rust-version\|repository\) = /p}' \
  "$work/base/Cargo.toml" > "$work/base/package.fields"
rm "$work/base/Cargo.toml"
sed -i -e '/\.workspace = true/d' -e '/^readme = /d' \
  -e '/^\[package\]/r '"$work/base/package.fields" -e '/^\[package\]/a version = "0.0.0-base"' \
  "$work/base/core/Cargo.toml"
sed -i -e '/^\[dependencies\]/a siphasher = { version = "1.0.1", default-features = false }' \
  -e '/^\[dev-dependencies\]/,$d' "$work/base/core/Cargo.toml"
cp "$repo/bench/ab/main.rs" "$work/ab/src/main.rs"
cat > "$work/ab/Cargo.toml" <<TOML
[package]
name = "hrwhash-ab"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
new = { package = "hrwhash", path = "$repo/core" }
base = { package = "hrwhash", path = "$work/base/core" }

[profile.release]
codegen-units = 1
lto = "thin"

[workspace]
TOML
CARGO_TARGET_DIR="$work/target" cargo build --release --quiet --manifest-path "$work/ab/Cargo.toml"
bin="$work/target/release/hrwhash-ab"
if [ -n "${AB_ONLY_BUILD:-}" ]; then
  echo "$bin"
  exit 0
fi
pin=()
if command -v taskset >/dev/null && [ "$(nproc)" -gt 1 ]; then pin=(taskset -c "${AB_PIN_CPU:-1}"); fi
"${pin[@]}" "$bin" ${2:-}
