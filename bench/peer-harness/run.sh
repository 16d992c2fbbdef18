#!/usr/bin/env bash
# Runs the cross-language peer harness (a read-only copy of it is at ../shared/bench beside the
# repository) with hrwhash's slots added, so hrwhash is measured beside the peers in one run.
#
#   bash bench/peer-harness/run.sh [HARNESS_DIR]      # default: ../shared/bench
#   LANGS="rust go" bash bench/peer-harness/run.sh   # any run_peers.sh knob passes through
#   HRW_BASELINE=main bash bench/peer-harness/run.sh  # adds the core at that revision: hrwhash-before
#
# Rust: hrwhash_slot.rs is added as a peer. Go: hrwhash_slot.go, when the C library is staged.
# Python, Node and C: the bindings' adapters are used when the bindings are built
# (`make peer-harness` builds them first).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
src="${1:-$repo/../shared/bench}"
if [ ! -d "$src" ]; then
  # A linked worktree: the harness is beside the main checkout.
  common="$(git -C "$repo" rev-parse --path-format=absolute --git-common-dir)"
  src="$(dirname "$common")/../shared/bench"
fi
work="$(mktemp -d /tmp/hrwhash-peer-harness.XXXXXX)"
cp -r "$src/." "$work/"
chmod -R u+w "$work"

# Rust slot: one more dependency and one more entry in PEERS.
cp "$repo/bench/peer-harness/hrwhash_slot.rs" "$work/rust/src/hrwhash_slot.rs"
sed -i "/^\[dependencies\]/a hrwhash = { path = \"$repo/core\" }" "$work/rust/Cargo.toml"
sed -i 's/^mod driver;/mod driver;\nmod hrwhash_slot;/' "$work/rust/src/main.rs"
sed -i 's/^const PEERS: &\[(&str, fn(&Driver))\] = &\[/const PEERS: \&[(\&str, fn(\&Driver))] = \&[\n    ("hrwhash", hrwhash_slot::peer),/' "$work/rust/src/main.rs"
grep -q 'hrwhash_slot::peer' "$work/rust/src/main.rs" || { echo "could not add the Rust slot" >&2; exit 1; }

# HRW_BASELINE=<git revision>: the core at that revision as one more Rust slot, hrwhash-before, so
# that a change is measured before and after in the same run.
if [ -n "${HRW_BASELINE:-}" ]; then
  mkdir -p "$work/baseline"
  git -C "$repo" archive "$HRW_BASELINE" core Cargo.toml | tar -x -C "$work/baseline"
  # Outside its workspace: spell out what the workspace gave, under a version of its own.
  sed -n '/^\[workspace.package\]/,/^\[/{/^\(edition\|license\|rust-version\|repository\) = /p}' \
    "$work/baseline/Cargo.toml" > "$work/baseline/package.fields"
  rm "$work/baseline/Cargo.toml"
  sed -i -e '/\.workspace = true/d' \
    -e '/^\[package\]/r '"$work/baseline/package.fields" -e '/^\[package\]/a version = "0.0.0-baseline"' \
    "$work/baseline/core/Cargo.toml"
  sed -i -e '/^\[dependencies\]/a siphasher = { version = "1.0.1", default-features = false }' \
    -e '/^\[dev-dependencies\]/,$d' "$work/baseline/core/Cargo.toml"
  sed -i -e '/^readme = /d' "$work/baseline/core/Cargo.toml"
  sed -e 's/hrwhash::/hrwhash_before::/g' -e 's/let lib = "hrwhash"/let lib = "hrwhash-before"/' \
    "$repo/bench/peer-harness/hrwhash_slot.rs" > "$work/rust/src/hrwhash_before_slot.rs"
  sed -i "/^\[dependencies\]/a hrwhash_before = { package = \"hrwhash\", path = \"$work/baseline/core\" }" "$work/rust/Cargo.toml"
  sed -i 's/^mod hrwhash_slot;/mod hrwhash_slot;\nmod hrwhash_before_slot;/' "$work/rust/src/main.rs"
  sed -i 's/^    ("hrwhash", hrwhash_slot::peer),/    ("hrwhash", hrwhash_slot::peer),\n    ("hrwhash-before", hrwhash_before_slot::peer),/' "$work/rust/src/main.rs"
fi

# Python, Node and C slots use the bindings' adapters, built by `make peer-harness`.
wheel=$(ls "$repo"/bindings-python/target/wheels/hrwhash-*.whl 2>/dev/null | head -n1 || true)
if [ -n "$wheel" ]; then
  python3 -m venv "$work/.venv"
  "$work/.venv/bin/pip" install --quiet --disable-pip-version-check -r "$work/python/requirements.txt" "$wheel"
  export PYTHONPATH="$repo/bindings-python/bench${PYTHONPATH:+:$PYTHONPATH}"
  export HRW_PY_ADAPTERS=hrwhash_adapter:ADAPTERS
fi
if ls "$repo"/bindings-node/*.node >/dev/null 2>&1; then
  export HRW_JS_ADAPTERS="$repo/bindings-node/bench/hrwhash-adapter.js"
fi
prefix="$repo/bindings-c/build/prefix"
if [ -f "$prefix/lib/libhrwhash.a" ]; then
  export HRW_C_EXTRA="$repo/bindings-c/bench/hrwhash_adapter.c -I$prefix/include $prefix/lib/libhrwhash.a -lpthread -ldl -lm"
  # Go slot: the Go package from this checkout, linked to the staged library through pkg-config.
  cp "$repo/bench/peer-harness/hrwhash_slot.go" "$work/go/hrwhash_slot.go"
  gomod="github.com/hrwhash/hrwhash/go"
  go_version=$(sed -n 's/^go //p' "$repo/go/go.mod")
  (cd "$work/go" && go mod edit -go="$go_version" -require="$gomod@v0.0.0" -replace="$gomod=$repo/go")
  export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  export CGO_LDFLAGS="-Wl,-rpath,$prefix/lib${CGO_LDFLAGS:+ $CGO_LDFLAGS}"
  # libhrwhash's SIMD kernels are opt-in (the default build is Go alone).
  export GOFLAGS="-tags=hrwhash_cgo${GOFLAGS:+ $GOFLAGS}"
fi

echo "harness copy: $work" >&2
HRW_RESULTS_DIR="${HRW_RESULTS_DIR:-$work/results}" bash "$work/run_peers.sh"
