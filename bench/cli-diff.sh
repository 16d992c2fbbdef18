#!/usr/bin/env bash
# `hrwhash diff` over many keys beside twice as many owner lookups, in one run, with the peak
# resident size of each process (`/usr/bin/time -v`). The memberships are 1,000 nodes `node-0`..
# joined by `node-1000`, the keys `key-0`..; the lookups are `diff_scale owners` (the core alone,
# the same keys, each placed on both memberships). Rounds alternate the two so that a change in
# the machine's load hits both.
#
#   bash bench/cli-diff.sh                 # 10^6 and 10^7 keys, 2 rounds
#   ROUNDS=1 KEYS="1000000" bash bench/cli-diff.sh
#   FROM_FILE=1 bash bench/cli-diff.sh     # keys read from a file instead of generated
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cargo="${CARGO:-cargo}"
keys_list="${KEYS:-1000000 10000000}"
rounds="${ROUNDS:-2}"
work="${WORK:-/tmp/hrwhash-cli-diff}"
mkdir -p "$work"
(cd "$repo" && "$cargo" build --quiet --release -p hrwhash-cli && "$cargo" build --quiet --release -p hrwhash-bench --example diff_scale)
bin="$repo/target/release"
seq 0 999 | sed 's/^/node-/' > "$work/old.txt"
seq 0 1000 | sed 's/^/node-/' > "$work/new.txt"

# user seconds, wall seconds, max RSS kB of one command
measure() {
  /usr/bin/time -v "$@" > "$work/stdout" 2> "$work/time" || { cat "$work/time" >&2; exit 1; }
  awk -F': ' '/User time/ {u=$2} /Elapsed \(wall clock\)/ {w=$2} /Maximum resident/ {m=$2}
    END {n=split(w, p, ":"); s=0; for (i=1; i<=n; i++) s=s*60+p[i]; printf "%.2f %.2f %d\n", u, s, m}' "$work/time"
}

printf '%-34s %10s %10s %12s\n' run user_s wall_s max_rss_kB
for round in $(seq 1 "$rounds"); do
  for n in $keys_list; do
    if [ "${FROM_FILE:-0}" = 1 ]; then
      [ -s "$work/keys-$n.txt" ] || seq 0 $((n - 1)) | sed 's/^/key-/' > "$work/keys-$n.txt"
      src=(--keys-from "$work/keys-$n.txt")
    else
      src=(--keys "$n")
    fi
    read -r du dw dm < <(measure "$bin/hrwhash" diff --from "$work/old.txt" --to "$work/new.txt" "${src[@]}" --json --quiet)
    grep -q "\"keys\": $n," "$work/stdout"
    read -r ou ow om < <(measure "$bin/examples/diff_scale" owners $((2 * n)))
    printf '%-34s %10s %10s %12s\n' "r$round hrwhash diff, $n keys" "$du" "$dw" "$dm"
    printf '%-34s %10s %10s %12s\n' "r$round owners, $((2 * n)) lookups" "$ou" "$ow" "$om"
    awk -v a="$du" -v b="$ou" -v c="$dw" -v d="$ow" \
      'BEGIN {printf "%-34s %9.2fx %9.2fx\n", "  diff / lookups", a / b, c / d}'
  done
done
