#!/usr/bin/env bash
# Runs the cross-language peer harness (a read-only copy of it is at ../shared/bench beside the
# repository) with hrwhash's slots added, so hrwhash is measured beside the peers in one run.
#
#   bash bench/peer-harness/run.sh [HARNESS_DIR]      # default: ../shared/bench
#   LANGS="rust go" bash bench/peer-harness/run.sh   # any run_peers.sh knob passes through
#
# Rust: hrwhash_slot.rs is added as a peer. Python, Node and C: the bindings' adapters are used
# when the bindings are built (`make peer-harness` builds them first).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
src="${1:-$repo/../shared/bench}"
work="$(mktemp -d /tmp/hrwhash-peer-harness.XXXXXX)"
cp -r "$src/." "$work/"
chmod -R u+w "$work"

# Rust slot: one more dependency and one more entry in PEERS.
cp "$repo/bench/peer-harness/hrwhash_slot.rs" "$work/rust/src/hrwhash_slot.rs"
sed -i "/^\[dependencies\]/a hrwhash = { path = \"$repo/core\" }" "$work/rust/Cargo.toml"
sed -i 's/^mod driver;/mod driver;\nmod hrwhash_slot;/' "$work/rust/src/main.rs"
sed -i 's/^const PEERS: &\[(&str, fn(&Driver))\] = &\[/const PEERS: \&[(\&str, fn(\&Driver))] = \&[\n    ("hrwhash", hrwhash_slot::peer),/' "$work/rust/src/main.rs"
grep -q 'hrwhash_slot::peer' "$work/rust/src/main.rs" || { echo "could not add the Rust slot" >&2; exit 1; }

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
fi

echo "harness copy: $work" >&2
HRW_RESULTS_DIR="${HRW_RESULTS_DIR:-$work/results}" bash "$work/run_peers.sh"
