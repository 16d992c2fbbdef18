"""One operation, COUNT calls, for instruction counts (timings on a loaded machine cannot resolve
tens of nanoseconds; callgrind's counts do not depend on the load):

    valgrind --tool=callgrind python bench/one.py [MODULE.so] OP N COUNT

OP is owner, lambda-owner (owner through a lambda, as the rank ops go), rank1, rank3, wowner or
none (the loop and a lambda alone); the difference of two COUNTs divided by their difference is
the cost of one call. Without MODULE.so the installed hrwhash is used.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, List


def main() -> None:
    args = sys.argv[1:]
    if args[0].endswith(".so"):
        from ab import load

        placement: Any = load("one", args.pop(0)).Placement
    else:
        import hrwhash

        placement = hrwhash.Placement
    op, n, count = args[0], int(args[1]), int(args[2])
    ids = [f"node-{i}" for i in range(n)]
    keys: List[str] = [f"key-{i}" for i in range(count)]
    f: Callable[[str], Any]
    if op == "owner":
        f = placement(ids).owner
    elif op == "lambda-owner":
        o = placement(ids).owner
        f = lambda key: o(key)  # noqa: E731 (what the rank ops pay for their lambda)
    elif op == "wowner":
        f = placement(ids, [1.0 + i % 4 for i in range(n)]).owner
    elif op in ("rank1", "rank3"):
        r, k = placement(ids).rank, int(op[-1])
        f = lambda key: r(key, k)  # noqa: E731 (the harness calls rank the same way)
    else:
        f = lambda key: key  # noqa: E731
    for key in keys:
        f(key)


if __name__ == "__main__":
    main()
