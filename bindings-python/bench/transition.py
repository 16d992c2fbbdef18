"""Transition.diff and Transition.plan against the same answers built from Placement.owners, in
one run, as ratios (the machine may be shared, so absolute times are only for orientation).

    .venv/bin/python bench/transition.py [--quick]

Keys are "key-0", "key-1", ...; the change adds one node to N. "owners x2" is what a caller
without a transition would do: both placements' owners over the whole batch, then a Python
comparison. Each line is the median over REPS interleaved passes, in ns per key.
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Callable, Dict, List

from hrwhash import Placement, Transition

QUICK = "--quick" in sys.argv
K = 50_000 if QUICK else 500_000
REPS = 3 if QUICK else 7
KEYS = [f"key-{i}" for i in range(K)]


def owners_twice(old: Placement[str], new: Placement[str]) -> Callable[[], None]:
    def run() -> None:
        before, after = old.owners(KEYS), new.owners(KEYS)
        sum(1 for a, b in zip(before, after) if a != b)

    return run


def main() -> None:
    for n in (10, 100, 1000):
        old = Placement([f"node-{i}" for i in range(n)])
        new = old.with_node(f"node-{n}")
        t = Transition(old, new)

        def diff() -> None:
            t.diff(KEYS)

        def plan() -> None:
            for _ in t.plan(KEYS):
                pass

        runs: Dict[str, Callable[[], None]] = {"owners x2": owners_twice(old, new), "diff": diff, "plan": plan}
        times: Dict[str, List[float]] = {name: [] for name in runs}
        for _ in range(REPS):
            for name, run in runs.items():
                start = time.perf_counter()
                run()
                times[name].append((time.perf_counter() - start) / K * 1e9)
        base = statistics.median(times["owners x2"])
        for name, ts in times.items():
            m = statistics.median(ts)
            print(f"N={n:5} {name:10} {m:8.1f} ns/key  {m / base:5.2f}x owners x2")


if __name__ == "__main__":
    main()
