#!/usr/bin/env bash
# Peak RSS of loading one large view document (bench/view_document.py: a million nodes with
# 90-byte ids, 112 MB) and reading its fingerprint, in every language (issue 20):
#
#   bash bench/view-memory.sh [NODES]
#
# Build what it runs first; a loader that is not built is reported and skipped:
#   cargo build --release -p hrwhash-cli      (the CLI)
#   make -C bindings-c stage                  (C, and Go's hrwhash_cgo build)
#   make -C bindings-node build               (Node)
#   make -C bindings-python wheel             (Python, in bindings-python/.venv)
# Go is built here. STAGE, CLI, PYTHON and HRWHASH_NODE (the Node package's directory) name other
# builds. Every loader must print the same fingerprint. The document is written to a
# temporary directory and removed at the end.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NODES=${1:-1000000}
STAGE=${STAGE:-$ROOT/bindings-c/build/prefix}
CLI=${CLI:-$ROOT/target/release/hrwhash}
PYTHON=${PYTHON:-$ROOT/bindings-python/.venv/bin/python}
export HRWHASH_NODE=${HRWHASH_NODE:-$ROOT/bindings-node}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
DOC=$WORK/view.json
python3 "$ROOT/bench/view_document.py" "$DOC" "$NODES"
SIZE=$(stat -c %s "$DOC")
printf '%s nodes, %s bytes of document (%.1f MB)\n\n' "$NODES" "$SIZE" "$(echo "$SIZE / 1000000" | bc -l)"
echo "| loader | peak RSS (MB) | x document |"
echo "| --- | ---: | ---: |"

FINGERPRINTS=$WORK/fingerprints
# row NAME COMMAND...: runs COMMAND under /usr/bin/time and prints its table row.
row() {
  local name=$1
  shift
  if ! /usr/bin/time -f %M -o "$WORK/rss" "$@" >"$WORK/out" 2>"$WORK/err"; then
    echo "| $name | failed: $(head -c 200 "$WORK/err" | tr '\n' ' ') | |"
    return
  fi
  # Only the fingerprint line (the CLI's --json answer has it as a member).
  grep -oE '[0-9a-f]{32}' "$WORK/out" | head -n1 >>"$FINGERPRINTS"
  awk -v kb="$(cat "$WORK/rss")" -v size="$SIZE" -v name="$name" \
    'BEGIN { printf "| %s | %.0f | %.1f |\n", name, kb * 1024 / 1e6, kb * 1024 / size }'
}
skip() { echo "| $1 | not built: $2 | |"; }

if [ -x "$CLI" ]; then
  row '`hrwhash view FILE --json`' "$CLI" view "$DOC" --json
  row '`hrwhash view FILE`' "$CLI" view "$DOC"
else
  skip CLI "cargo build --release -p hrwhash-cli"
fi

if [ -f "$STAGE/include/hrwhash.h" ]; then
  cc -O2 -I"$STAGE/include" "$ROOT/bench/view-memory/load.c" -L"$STAGE/lib" -Wl,-rpath,"$STAGE/lib" \
    -lhrwhash -o "$WORK/load_c"
  row 'C `hrw_view_from_file`' "$WORK/load_c" "$DOC"
else
  skip C "make -C bindings-c stage"
fi

if [ -x "$PYTHON" ] && "$PYTHON" -c 'import hrwhash' 2>/dev/null; then
  row 'Python `View.from_file`' "$PYTHON" "$ROOT/bench/view-memory/load.py" "$DOC" file
  row 'Python `View.from_json(str)`' "$PYTHON" "$ROOT/bench/view-memory/load.py" "$DOC" json
  row 'Python `View.from_json(bytes)`' "$PYTHON" "$ROOT/bench/view-memory/load.py" "$DOC" bytes
else
  skip Python "make -C bindings-python wheel"
fi

if ls "$HRWHASH_NODE"/hrwhash.*.node >/dev/null 2>&1; then
  row 'Node `View.fromFile`' node "$ROOT/bench/view-memory/load.js" "$DOC" file
  row 'Node `View.fromJson(string)`' node "$ROOT/bench/view-memory/load.js" "$DOC" json
  row 'Node `View.fromJson(Buffer)`' node "$ROOT/bench/view-memory/load.js" "$DOC" bytes
else
  skip Node "make -C bindings-node build"
fi

(cd "$ROOT/go/bench" && CGO_ENABLED=1 go build -o "$WORK/load_go" ./viewload)
row 'Go pure `ViewFromFile`' "$WORK/load_go" "$DOC"
row 'Go pure `ViewFromJSON`' "$WORK/load_go" -json "$DOC"
if [ -f "$STAGE/lib/pkgconfig/hrwhash.pc" ]; then
  (cd "$ROOT/go/bench" && CGO_ENABLED=1 GOFLAGS=-tags=hrwhash_cgo PKG_CONFIG_PATH="$STAGE/lib/pkgconfig" \
    CGO_LDFLAGS="-Wl,-rpath,$STAGE/lib" go build -o "$WORK/load_gocgo" ./viewload)
  row 'Go cgo `ViewFromFile`' "$WORK/load_gocgo" "$DOC"
  row 'Go cgo `ViewFromJSON`' "$WORK/load_gocgo" -json "$DOC"
else
  skip "Go cgo" "make -C bindings-c stage"
fi

echo
if [ "$(sort -u "$FINGERPRINTS" | wc -l)" = 1 ]; then
  echo "every loader: fingerprint $(head -n1 "$FINGERPRINTS")"
else
  echo "FINGERPRINTS DIFFER:" && sort "$FINGERPRINTS" | uniq -c
  exit 1
fi
