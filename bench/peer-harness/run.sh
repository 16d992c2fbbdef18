#!/usr/bin/env bash
# Runs the cross-language peer harness (a read-only copy of it is at ../shared/bench beside the
# repository) with hrwhash's slots added, so hrwhash is measured beside the peers in one run.
#
#   bash bench/peer-harness/run.sh [HARNESS_DIR]      # default: ../shared/bench
#   LANGS="rust go" bash bench/peer-harness/run.sh   # any run_peers.sh knob passes through
#
# Rust: hrwhash_slot.rs is added as a peer. Python, Node and C: the bindings' adapters are used
# when the bindings are built (see bindings-*/bench/).
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

# Other languages' slots, when their adapters exist (each binding documents its own).
for hook in "$repo"/bindings-*/bench/peer-harness-env.sh; do
  [ -f "$hook" ] && source "$hook" "$work"
done

echo "harness copy: $work" >&2
HRW_RESULTS_DIR="${HRW_RESULTS_DIR:-$work/results}" bash "$work/run_peers.sh"
