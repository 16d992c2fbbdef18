"""What compare.py and profiles.py share: the pass length and count (shorter under --quick), and
the median ns per key of REPS passes over K keys, K calibrated so that one pass takes about
TARGET_S (a much shorter pass is dominated by the timer and first-call costs)."""

from __future__ import annotations

import statistics
import sys
import time
from typing import Callable, Sequence

QUICK = "--quick" in sys.argv
TARGET_S = 0.05 if QUICK else 0.3
REPS = 3 if QUICK else 5

# A pass over keys[:k]; returns nothing, timed as a whole.
Pass = Callable[[int], None]


def single(owner: Callable[[str], object], keys: Sequence[str]) -> Pass:
    """A pass that looks up keys[:k] one at a time."""

    def run(k: int) -> None:
        for key in keys[:k]:
            owner(key)

    return run


def median_ns_per_key(run: Pass, kmax: int, min_k: int = 16) -> float:
    """K doubles from min_k until a pass takes 50 ms (or K reaches kmax), is scaled to TARGET_S,
    and the median of REPS passes of K keys is returned in ns per key."""
    k = min_k
    while True:
        t = time.perf_counter()
        run(k)
        elapsed = time.perf_counter() - t
        if elapsed >= 0.05 or k >= kmax:
            break
        k *= 2
    k = max(min_k, min(kmax, int(TARGET_S / (elapsed / k))))
    samples = []
    for _ in range(REPS):
        t = time.perf_counter()
        run(k)
        samples.append((time.perf_counter() - t) / k * 1e9)
    return statistics.median(samples)
