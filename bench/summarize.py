#!/usr/bin/env python3
"""Prints the criterion results of bench/benches/lookup.rs as ns per key, with hrwhash's lead over each peer."""
import json
import sys
from pathlib import Path

KEYS = 256  # keys per criterion iteration, see benches/lookup.rs and benches/kernels.rs


def load(root: Path, functions=None):
    """The median ns per key of each result below root by (group, function, N); of the named
    functions only, when they are given."""
    rows = {}
    for est in root.glob("*/*/*/new/estimates.json"):
        bench = json.loads((est.parent / "benchmark.json").read_text())
        if functions is not None and bench["function_id"] not in functions:
            continue
        median = json.loads(est.read_text())["median"]["point_estimate"] / KEYS
        rows[(bench["group_id"], bench["function_id"], int(bench["value_str"]))] = median
    return rows


def table_head(first: str, sizes, rule: str = " --- |"):
    """The head of a markdown table with a column per N."""
    print(f"| {first} | " + " | ".join(f"N={n}" for n in sizes) + " |")
    print("| --- |" + rule * len(sizes))


def table_row(first: str, sizes, cell):
    """A markdown table row: `first`, then cell(N) for each N."""
    print(f"| {first} | " + " | ".join(cell(n) for n in sizes) + " |")


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")
    rows = load(root)
    groups = sorted({g for g, _, _ in rows})
    sizes = sorted({n for _, _, n in rows})
    for group in groups:
        libs = sorted({l for g, l, _ in rows if g == group}, key=lambda l: (not l.startswith("hrwhash"), l))
        ours = next(l for l in libs if l.startswith("hrwhash"))
        print(f"\n{group}: ns per key (median); x = peer time / {ours} time")
        table_head("library", sizes)
        for lib in libs:
            def cell(n):
                t = rows.get((group, lib, n))
                if t is None:
                    return ""
                base = rows.get((group, ours, n))
                ratio = "" if lib == ours or base is None else f" ({t / base:.1f}x)"
                return f"{t:.1f}{ratio}"
            table_row(lib, sizes, cell)


if __name__ == "__main__":
    main()
