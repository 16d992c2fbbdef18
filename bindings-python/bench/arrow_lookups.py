"""Batch lookups from Arrow and NumPy at N = 5, 100 and 1000: ns per key of thread CPU time
(minimum of 3, so the load of other processes moves it less than wall time), 10^7 keys `key-0`...

    python bench/arrow_lookups.py [KEYS]

Several builds of the module side by side, in one run (the figures of BENCHMARKS.md):

    HRWHASH_BUILDS=before=/tmp/old,after=/tmp/new python bench/arrow_lookups.py

where each directory holds an `hrwhash` package (python/hrwhash plus its native module); each build
runs in a child process of its own, the rows alternating between them. `HRWHASH_NODES=100` runs
one N only.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any, Callable, Dict, List

KEYS = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 10_000_000
NODES = tuple(int(n) for n in os.environ.get("HRWHASH_NODES", "5,100,1000").split(","))


def cpu_ns(f: Callable[[], Any], reps: int = 3) -> float:
    best = float("inf")
    for _ in range(reps):
        t = time.thread_time_ns()
        f()
        best = min(best, time.thread_time_ns() - t)
    return best / KEYS


def rows(nodes: int) -> Dict[str, float]:
    """One build, one N: the rows, in ns per key."""
    import numpy as np
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    import hrwhash

    p = hrwhash.Placement([f"node-{i}" for i in range(nodes)])
    numbers = pc.cast(pa.array(np.arange(KEYS)), pa.string())
    arrow = pc.binary_join_element_wise(pa.scalar("key-"), numbers, "")
    view = arrow.cast(pa.string_view())
    # A categorical column: 1000 distinct keys.
    dictionary = pc.binary_join_element_wise(
        pa.scalar("key-"), pc.cast(pa.array(np.arange(KEYS) % 1000), pa.string()), ""
    ).dictionary_encode()
    numpy_keys = np.asarray(arrow.to_numpy(zero_copy_only=False).astype(str))
    series = pd.Series(arrow, dtype=pd.ArrowDtype(pa.string()))
    out: Dict[str, float] = {}
    out["pyarrow string -> owner_indices"] = cpu_ns(lambda: p.owner_indices(arrow))
    out["pyarrow string, validation only (pyarrow validate(full=True))"] = cpu_ns(
        lambda: arrow.validate(full=True)
    )
    out["pyarrow string_view -> owner_indices"] = cpu_ns(lambda: p.owner_indices(view))
    out["pyarrow dictionary (1000 values) -> owner_indices"] = cpu_ns(lambda: p.owner_indices(dictionary))
    out["pyarrow string -> owners (list of ids)"] = cpu_ns(lambda: p.owners(arrow))
    out["pyarrow string -> rank_many_arrow(k = 3)"] = cpu_ns(lambda: p.rank_many_arrow(arrow, 3))
    out["NumPy str_ -> owner_indices"] = cpu_ns(lambda: p.owner_indices(numpy_keys))
    out["pandas Arrow-backed -> owner_indices"] = cpu_ns(lambda: p.owner_indices(series))
    return out


def child(nodes: int) -> None:
    for name, ns in rows(nodes).items():
        print(f"{name}\t{ns:.1f}")


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[2] == "--child":
        child(int(sys.argv[3]))
        return
    spec = os.environ.get("HRWHASH_BUILDS", "")
    builds: List[tuple[str, str]] = [tuple(b.split("=", 1)) for b in spec.split(",") if b] or [("", "")]  # type: ignore[misc]
    table: Dict[str, Dict[str, str]] = {}
    for nodes in NODES:
        for label, path in builds:
            env = dict(os.environ)
            if path:
                env["PYTHONPATH"] = path
            lines = subprocess.run(
                [sys.executable, __file__, str(KEYS), "--child", str(nodes)],
                check=True, capture_output=True, text=True, env=env,
            ).stdout.splitlines()
            for line in lines:
                name, ns = line.split("\t")
                table.setdefault(f"{name}{' (' + label + ')' if label else ''}", {})[str(nodes)] = ns
    print(f"{KEYS:,} keys, ns per key (thread CPU time, minimum of 3)\n")
    print("| input -> call | " + " | ".join(f"N = {n}" for n in NODES) + " |")
    print("| --- |" + " ---: |" * len(NODES))
    for name, by_n in sorted(table.items()):
        print(f"| {name} | " + " | ".join(by_n.get(str(n), "-") for n in NODES) + " |")


if __name__ == "__main__":
    main()
