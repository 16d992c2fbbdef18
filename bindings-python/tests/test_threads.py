"""Batch lookups release the GIL and give the same answers from many threads at once."""

from __future__ import annotations

import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Iterator, List

import pytest

from hrwhash import Placement

NODES = [f"node-{i}" for i in range(100)]
# A placement whose batch lookups run long without the GIL (about 25 ms for 300,000 keys): the
# observer below must be woken and scheduled within that time, which on a loaded 2-core machine
# took longer than the 5 ms of 100 nodes.
SLOW_NODES = [f"node-{i}" for i in range(1000)]


@pytest.fixture
def long_switch_interval() -> Iterator[None]:
    # With a 100 s switch interval the interpreter never forces a running thread to hand over the
    # GIL, so another thread can only run while the running one releases it itself.
    old = sys.getswitchinterval()
    sys.setswitchinterval(100.0)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


@pytest.mark.parametrize("call", ["owners", "rank_many"])
def test_batch_calls_release_the_gil(call: str, long_switch_interval: None) -> None:
    p = Placement(SLOW_NODES)
    keys = [f"key-{i}" for i in range(300_000)]
    go = threading.Event()
    seen: List[bool] = []
    state = {"in_call": False}

    def observer() -> None:
        go.wait()
        seen.append(state["in_call"])

    t = threading.Thread(target=observer)
    t.start()
    while not t.is_alive():
        pass
    state["in_call"] = True
    go.set()  # the observer now waits for the GIL, which only a GIL-free section hands over
    if call == "owners":
        p.owners(keys)
    else:
        p.rank_many(keys, 2)
    state["in_call"] = False
    t.join()
    assert seen == [True]


def test_single_lookups_keep_the_gil(long_switch_interval: None) -> None:
    # The control for the test above: without a GIL-free section the observer runs only afterwards.
    p = Placement(NODES)
    go = threading.Event()
    seen: List[bool] = []
    state = {"in_call": False}

    def observer() -> None:
        go.wait()
        seen.append(state["in_call"])

    t = threading.Thread(target=observer)
    t.start()
    state["in_call"] = True
    go.set()
    for i in range(20_000):
        p.owner(f"key-{i}")
    state["in_call"] = False
    t.join()
    assert seen == [False]


def test_many_threads_agree() -> None:
    p = Placement(NODES, [1.0 + i % 4 for i in range(len(NODES))])
    keys = [f"key-{i}".encode() for i in range(20_000)]
    want_owners = [p.owner(k) for k in keys]
    want_top3 = [p.rank(k, 3) for k in keys]

    def work(i: int) -> bool:
        mine = keys[i % 7 :: 1 + i % 3]
        lo = i % 7
        step = 1 + i % 3
        return (
            p.owners(mine) == want_owners[lo::step]
            and p.rank_many(mine, 3) == want_top3[lo::step]
            and [p.owner(k) for k in mine[:500]] == want_owners[lo::step][:500]
        )

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert all(pool.map(work, range(32)))


def test_keys_mutated_during_a_batch_do_not_corrupt_it() -> None:
    # bytearray keys are copied before the GIL is released, so a writer thread cannot change
    # what the batch hashes (or free it) halfway through.
    p = Placement(NODES)
    keys = [bytearray(f"key-{i}".encode()) for i in range(50_000)]
    frozen = [bytes(k) for k in keys]
    want = p.owners(frozen)
    stop = threading.Event()

    def scribble() -> None:
        while not stop.is_set():
            for k in keys[:100]:
                k[0:1] = b"X"
            keys.append(bytearray(b"more"))
            keys.pop()

    t = threading.Thread(target=scribble)
    t.start()
    try:
        got = p.owners(list(keys))
    finally:
        stop.set()
        t.join()
    changed = {i for i, k in enumerate(keys[: len(want)]) if bytes(k) != frozen[i]}
    for i, (g, w) in enumerate(zip(got, want)):
        if i not in changed:
            assert g == w
