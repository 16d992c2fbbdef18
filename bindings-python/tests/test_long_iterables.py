"""Per-node arguments (weights, domains, loads) are read no further than one item past the nodes,
so an over-long or endless iterable is a LengthMismatchError at once, never an allocation; and an
endless iterable of keys ends in MemoryError, as a Python list of it would, never an abort."""

from __future__ import annotations

import itertools
import subprocess
import sys
import textwrap
import time
from typing import Any, Callable, Iterator

import pytest

import hrwhash
from hrwhash import BoundedLoad, Placement, ProfilePlacement


def mismatch(call: Callable[[], Any], expected: int, actual: int, message: str) -> None:
    start = time.perf_counter()
    with pytest.raises(hrwhash.errors.LengthMismatchError, match=message) as e:
        call()
    assert time.perf_counter() - start < 0.5
    assert (e.value.expected, e.value.actual) == (expected, actual)


def endless() -> Iterator[float]:
    while True:
        yield 1.0


def test_weights_longer_than_the_nodes() -> None:
    mismatch(lambda: Placement(["a", "b"], weights=range(10**10)), 2, 10**10, "10000000000 weights for 2 nodes")
    mismatch(lambda: Placement(["a", "b"], weights=itertools.repeat(1.0)), 2, 3, "at least 3 weights for 2 nodes")
    mismatch(lambda: Placement(["a", "b"], weights=endless()), 2, 3, "at least 3 weights")
    mismatch(lambda: ProfilePlacement("ketama-libmemcached", ["a", "b"], weights=itertools.repeat(1.0)), 2, 3, "at least 3 weights")
    mismatch(lambda: ProfilePlacement("ketama-libmemcached", ["a", "b"], weights=range(10**10)), 2, 10**10, "10000000000 weights")


def test_domains_longer_than_the_nodes() -> None:
    mismatch(lambda: Placement(["a", "b"], domains=itertools.repeat("x")), 2, 3, "at least 3 domains for 2 nodes")
    mismatch(lambda: Placement(["a"], domains=(str(i) for i in itertools.count())), 1, 2, "at least 2 domains")


def test_loads_longer_than_the_nodes() -> None:
    bounded = BoundedLoad(Placement(["a", "b", "c"]), 1.25)
    mismatch(lambda: bounded.owner("k", itertools.repeat(0)), 3, 4, "at least 4 loads for 3 nodes")
    mismatch(lambda: bounded.owner_index("k", range(10**10)), 3, 10**10, "10000000000 loads for 3 nodes")
    assert bounded.owner("k", iter([0, 0, 0])) == bounded.owner("k", [0, 0, 0])


def test_the_type_of_every_item_read_is_still_checked() -> None:
    # The items read before the mismatch is known are type-checked first (API.md 4).
    with pytest.raises(hrwhash.errors.InvalidArgumentError, match="weight at index 1"):
        Placement(["a", "b"], weights=itertools.chain([1.0, "x"], itertools.repeat(1.0)))  # type: ignore[list-item]
    with pytest.raises(hrwhash.errors.InvalidArgumentError, match="loads\\[0\\]"):
        BoundedLoad(Placement(["a"]), 1.5).owner("k", itertools.chain(["x"], itertools.repeat(0)))  # type: ignore[list-item]


def test_endless_keys_are_a_memory_error_not_an_abort() -> None:
    # In a child whose address space is capped, so the list of keys runs out of memory quickly.
    script = textwrap.dedent(
        """
        import itertools, resource
        import hrwhash
        bounded = hrwhash.BoundedLoad(hrwhash.Placement(["a", "b"]), 1.25)
        with open("/proc/self/status") as f:
            size = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
        resource.setrlimit(resource.RLIMIT_AS, (size + 256 * 2**20, resource.RLIM_INFINITY))
        for call in (bounded.assign, bounded.assign_indices, hrwhash.Placement):
            try:
                call(itertools.repeat("k"))
            except MemoryError:
                print("MemoryError")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["MemoryError"] * 3
