"""Same-process A/B of two builds of the native module.

    python bench/ab.py BASE.so NEW.so

Both builds are loaded into one interpreter (as `base._hrwhash` and `new._hrwhash`), and every
case alternates which build goes first in each round, so load on the machine falls on both alike.
Prints the median ns per call over ROUNDS rounds of 2**16 keys (the harness's keys and nodes), and
each build's `rank(key, 3)` less its own `owner`.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import statistics
import sys
import time
from types import ModuleType
from typing import Any, Callable, Dict, List, Tuple

K = 1 << 16
ROUNDS = int(os.environ.get("ROUNDS", "15"))


def load(name: str, path: str) -> ModuleType:
    # The last part of the name must be the module's own (_hrwhash): it names the init function.
    loader = importlib.machinery.ExtensionFileLoader(f"{name}._hrwhash", path)
    spec = importlib.util.spec_from_file_location(f"{name}._hrwhash", path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def timed(f: Callable[[Any], Any], keys: List[Any]) -> float:
    t = time.perf_counter_ns()
    for k in keys:
        f(k)
    return (time.perf_counter_ns() - t) / len(keys)


def main() -> None:
    base, new = load("base", sys.argv[1]), load("new", sys.argv[2])
    str_keys = [f"key-{i}" for i in range(K)]
    bytes_keys = [k.encode() for k in str_keys]
    Maker = Callable[[Any], Callable[[Any], Any]]
    cases: List[Tuple[str, Maker, List[Any]]] = []

    def owner(ids: List[Any], w: Any = None) -> Maker:
        return lambda m: m.Placement(ids, w).owner if w else m.Placement(ids).owner

    def rank3(ids: List[Any]) -> Maker:
        def make(m: Any) -> Callable[[Any], Any]:
            r = m.Placement(ids).rank
            return lambda k: r(k, 3)

        return make

    for n in (5, 100, 1000):
        ids: List[Any] = [f"node-{i}" for i in range(n)]
        bids: List[Any] = [i.encode() for i in ids]
        cases.append((f"owner N={n}", owner(ids), str_keys))
        cases.append((f"rank3 N={n}", rank3(ids), str_keys))
        cases.append((f"wowner N={n}", owner(ids, [1.0 + i % 4 for i in range(n)]), str_keys))
        cases.append((f"owner-bytes N={n}", owner(bids), bytes_keys))
        cases.append((f"rank3-bytes N={n}", rank3(bids), bytes_keys))
    cases.append(("empty lambda", lambda m: (lambda k: k), str_keys))
    medians: Dict[str, Tuple[float, float]] = {}
    for name, make, keys in cases:
        fa, fb = make(base), make(new)
        assert fa(keys[7]) == fb(keys[7]), name
        timed(fa, keys)
        timed(fb, keys)
        ta: List[float] = []
        tb: List[float] = []
        for r in range(ROUNDS):
            if r & 1:
                tb.append(timed(fb, keys))
                ta.append(timed(fa, keys))
            else:
                ta.append(timed(fa, keys))
                tb.append(timed(fb, keys))
        a, b = statistics.median(ta), statistics.median(tb)
        medians[name] = (a, b)
        print(
            f"{name:<18} base {a:7.1f}  new {b:7.1f}  new/base {b / a:.2f}"
            f"  (min {min(ta):.1f} / {min(tb):.1f})",
            flush=True,
        )
    for n in (5, 100, 1000):
        for suffix in ("", "-bytes"):
            oa, ob = medians[f"owner{suffix} N={n}"]
            ra, rb = medians[f"rank3{suffix} N={n}"]
            print(f"rank3{suffix} - owner{suffix}, N={n}: base {ra - oa:+.1f} ns, new {rb - ob:+.1f} ns")


if __name__ == "__main__":
    main()
