"""DataFrame-scale batches beside the core, in one run: ns per key for 10^7 keys on N = 100, from
pyarrow, NumPy, pandas (Arrow-backed and object) and Polars, against the core's own batch
(`cargo run --release --example core_owners`) and `Series.map(placement.owner)`; peak memory of
each input kind in a child process.

    python bench/dataframes.py [KEYS]
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List

KEYS = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 10_000_000
HERE = Path(__file__).resolve().parent


def timed(f: Callable[[], Any], reps: int = 3) -> float:
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e9 / KEYS


def core_ns() -> float:
    out = subprocess.run(
        ["cargo", "run", "--quiet", "--release", "-p", "hrwhash-python", "--example", "core_owners"],
        check=True, capture_output=True, text=True, cwd=HERE.parent,
    ).stdout
    rows = dict((tuple(line.split(",")[:2]), float(line.split(",")[2])) for line in out.split())
    return rows[("100", "owners")]


def peak_child(kind: str) -> None:
    """In a child: build the input, measure RSS before and after the call."""
    import numpy as np
    import pyarrow as pa

    import hrwhash

    import pyarrow.compute as pc

    p = hrwhash.Placement([f"node-{i}" for i in range(100)])
    # Built without a Python object per key, so the peak before the call is the input itself.
    numbers = pc.cast(pa.array(np.arange(KEYS)), pa.string())
    keys: Any = pc.binary_join_element_wise(pa.scalar("key-"), numbers, "")
    del numbers
    if kind == "numpy":
        keys = keys.to_numpy(zero_copy_only=False).astype(str)
    input_bytes = keys.nbytes
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    result = p.owner_indices(keys)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    del result
    print(f"{kind},{input_bytes},{max(0, after - before)}")


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[2] == "--peak":
        peak_child(sys.argv[3])
        return
    import numpy as np
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    import hrwhash
    import hrwhash.polars  # noqa: F401

    p = hrwhash.Placement([f"node-{i}" for i in range(100)])
    text: List[str] = [f"key-{i}" for i in range(KEYS)]
    arrow = pa.array(text)
    rows: Dict[str, float] = {"core owners_into (Rust, &[String])": core_ns()}
    rows["pyarrow string -> owner_indices (uint32)"] = timed(lambda: p.owner_indices(arrow))
    rows["pyarrow string -> owners_arrow (dictionary)"] = timed(lambda: p.owners_arrow(arrow))
    rows["pyarrow string_view -> owner_indices"] = timed(lambda: p.owner_indices(arrow.cast(pa.string_view())))
    numpy_keys = np.array(text)
    rows["NumPy str_ -> owner_indices"] = timed(lambda: p.owner_indices(numpy_keys))
    series_arrow = pd.Series(arrow, dtype=pd.ArrowDtype(pa.string()))
    series_object = pd.Series(text, dtype=object)
    rows["pandas Arrow-backed -> owners_arrow"] = timed(lambda: p.owners_arrow(series_arrow.array))
    rows["pandas object -> owners_arrow"] = timed(lambda: p.owners_arrow(series_object.to_numpy()))
    rows["pandas object -> Series.map(p.owner)"] = timed(lambda: series_object.map(p.owner), reps=1)
    rows["list of str -> owners (list of str)"] = timed(lambda: p.owners(text), reps=1)
    frame = pl.DataFrame({"key": arrow})
    rows["Polars lazy pl.col('key').hrw.owner"] = timed(
        lambda: frame.lazy().select(pl.col("key").hrw.owner(p)).collect()  # type: ignore[attr-defined]
    )
    core = rows["core owners_into (Rust, &[String])"]
    print(f"{KEYS:,} keys, N = 100, ns per key (median of 3; one run for the Python-object rows)\n")
    print("| input -> call | ns/key | vs core |")
    print("| --- | ---: | ---: |")
    for name, ns in rows.items():
        print(f"| {name} | {ns:.1f} | {ns / core:.2f}x |")
    print(f"\ntarget for pyarrow input: <= 1.2 x core + 5 ns = {1.2 * core + 5:.1f} ns/key\n")
    print("| input | input bytes | peak growth during owner_indices | bytes per key |")
    print("| --- | ---: | ---: | ---: |")
    for kind in ("arrow", "numpy"):
        out = subprocess.run(
            [sys.executable, __file__, str(KEYS), "--peak", kind], check=True, capture_output=True, text=True
        ).stdout.strip()
        _, input_bytes, growth = out.split(",")
        print(f"| {kind} | {int(input_bytes):,} | {int(growth):,} | {int(growth) / KEYS:.1f} |")


if __name__ == "__main__":
    main()
