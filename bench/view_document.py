#!/usr/bin/env python3
"""Writes a large hrwhash-view-v1 document (conformance/VIEW.md) for memory measurements, so
that no large file is committed.

    python3 bench/view_document.py OUT [NODES [ID_BYTES]]

NODES (default 1,000,000) nodes with ids of ID_BYTES (default 90) ASCII bytes; every fourth
node has weight 2.5 and every eighth a domain (`rack-<i mod 64>`), so that every member kind is
read. The default is about 112 MB, the size of the view in issue 20. The document is in canonical form (ids ascending), so
`hrwhash view --json` and every binding load it unchanged.
"""

import sys


def main() -> None:
    out = sys.argv[1]
    nodes = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    id_bytes = int(sys.argv[3]) if len(sys.argv) > 3 else 90
    with open(out, "w", encoding="ascii", newline="\n") as f:
        f.write(
            '{\n  "format": "hrwhash-view-v1",\n  "algorithm": "hrw-v1",\n'
            '  "epoch": "7",\n  "seed": "default",\n  "nodes": [\n'
        )
        for i in range(nodes):
            prefix = f"cache-{i:09d}."
            node_id = (prefix + "x" * id_bytes)[:id_bytes]
            weight = ', "weight": 2.5' if i % 4 == 0 else ""
            sep = ",\n" if i + 1 < nodes else "\n"
            domain = f', "domain": "rack-{i % 64}"' if i % 8 == 0 else ""
            f.write(f'    {{"id": "{node_id}"{weight}{domain}}}{sep}')
        f.write("  ]\n}\n")


if __name__ == "__main__":
    main()
