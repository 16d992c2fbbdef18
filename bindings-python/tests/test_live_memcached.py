"""A LiveView routing reads to real memcached servers while the fleet goes 5 -> 6 -> 5: the change
callback copies exactly the keys that move (Transition.plan) from their old owner to their new
one, then ends the move; readers read where route() says. No read is lost."""

from __future__ import annotations

import os
import subprocess
import threading
from typing import Dict, Iterator, List

import pytest
from pymemcache.client.base import Client

from test_memcached import free_port, start_memcached

from hrwhash import LiveView, Placement, Transition, View

KEYS = [f"session:{i}" for i in range(3000)]


@pytest.fixture
def six_servers() -> Iterator[List[str]]:
    procs: Dict[str, "subprocess.Popen[bytes]"] = {}
    try:
        for _ in range(6):
            port = free_port()
            procs[f"127.0.0.1:{port}"] = start_memcached(port)
    except (OSError, RuntimeError) as e:
        for p in procs.values():
            p.kill()
        if os.environ.get("CI") == "true":
            pytest.fail(f"cannot start memcached: {e}")
        pytest.skip(f"cannot start memcached (install it, or set CI=true to make this fail): {e}")
    yield list(procs)
    for p in procs.values():
        p.kill()
        p.wait()


def client(server: str) -> Client:
    host, port = server.rsplit(":", 1)
    return Client((host, int(port)), connect_timeout=5, timeout=10, default_noreply=False)


def value_of(key: str) -> bytes:
    return f"value of {key}".encode()


def test_transition_routing_with_copying_callbacks_loses_no_read(six_servers: List[str]) -> None:
    five = View(Placement(six_servers[:5]), 1)
    six = View(Placement(six_servers), 2)
    back = View(Placement(six_servers[:5]), 3)

    writers = {s: client(s) for s in six_servers}
    for key, owner in zip(KEYS, five.placement.owners(KEYS)):
        assert writers[owner].set(key, value_of(key)) is True

    live = LiveView(five)
    copied: List[int] = []

    def migrate(t: Transition) -> None:
        # Runs after the swap: readers already read from the old owner and write to the new one.
        n = 0
        for key, old, new in t.plan(KEYS):
            value = writers[old].get(key)
            assert value == value_of(key)
            assert writers[new].set(key, value) is True
            n += 1
        copied.append(n)
        live.finish_move()  # every moved key is at its new owner now

    live.on_change(migrate)

    done = threading.Event()
    reads = [0]
    lost: List[str] = []
    # What reading the current owner (no transition routing) would have missed during the moves.
    unrouted_misses = [0]
    lock = threading.Lock()

    def reader(offset: int) -> None:
        mine = {s: client(s) for s in six_servers}
        i = offset
        while not done.is_set():
            key = KEYS[i % len(KEYS)]
            route = live.route(key)
            got = mine[route.read].get(key)
            moving = route.moved
            unrouted = mine[route.write].get(key) if moving else got
            with lock:
                reads[0] += 1
                if got != value_of(key):
                    lost.append(f"{key} at {route.read}: {got!r}")
                if unrouted is None:
                    unrouted_misses[0] += 1
            i += 7

    threads = [threading.Thread(target=reader, args=(r,)) for r in range(4)]
    for t in threads:
        t.start()
    try:
        for target in (six, back):
            before = reads[0]
            assert live.update(target) == "applied"
            assert not live.moving
            # Let the readers run on the new view too.
            while reads[0] < before + 2000:
                threading.Event().wait(0.01)
    finally:
        done.set()
        for t in threads:
            t.join()

    assert lost == []
    moved_in = sum(1 for a, b in zip(five.placement.owners(KEYS), six.placement.owners(KEYS)) if a != b)
    moved_out = sum(1 for a, b in zip(six.placement.owners(KEYS), back.placement.owners(KEYS)) if a != b)
    assert copied == [moved_in, moved_out]
    # HRW moves about 1/6 of the keys to the sixth node, and back.
    assert 0.10 * len(KEYS) < moved_in < 0.23 * len(KEYS) and moved_out == moved_in
    assert reads[0] > 4000
    print(f"reads={reads[0]} lost=0 copied={copied} unrouted_misses={unrouted_misses[0]}")
