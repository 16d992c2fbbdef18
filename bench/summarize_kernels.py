#!/usr/bin/env python3
"""Prints the criterion results of bench/benches/kernels.rs: ns per key for each kernel, its speed-up
over AVX2 and over scalar, and the top-3 / owner and weighted / owner ratios of each kernel."""
import sys
from pathlib import Path

from summarize import load, table_head, table_row

KERNELS = ["scalar", "avx2", "avx512"]


def main():
    rows = load(Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion"), KERNELS)
    groups = sorted({g for g, _, _ in rows})
    sizes = sorted({n for _, _, n in rows})
    kernels = [k for k in KERNELS if any(r[1] == k for r in rows)]
    for group in groups:
        print(f"\n{group}: ns per key (median); (x avx2 time / this, x scalar time / this)")
        table_head("kernel", sizes, " ---: |")
        for k in kernels:
            def cell(n):
                t = rows.get((group, k, n))
                if t is None:
                    return ""
                ratios = [f"{rows[(group, b, n)] / t:.2f}x" for b in ("avx2", "scalar")
                          if b != k and (group, b, n) in rows]
                return f"{t:,.1f}" + (f" ({', '.join(ratios)})" if ratios else "")
            table_row(k, sizes, cell)
    for inp in ("key", "digest"):
        print(f"\nratios to the owner, {inp} input: top-3 / owner, weighted / owner")
        table_head("kernel", sizes, " ---: |")
        for k in kernels:
            def cell(n):
                o = rows.get((f"owner/{inp}", k, n))
                t = rows.get((f"top3/{inp}", k, n))
                w = rows.get((f"weighted/{inp}", k, n))
                return " / ".join(f"{x / o:.2f}" if x and o else "-" for x in (t, w))
            table_row(k, sizes, cell)


if __name__ == "__main__":
    main()
