"""hrwhash.pymemcache.Hasher inside pymemcache's HashClient, against three real memcached servers."""

from __future__ import annotations

import functools
import os
import shutil
import socket
import subprocess
import time
from typing import Dict, Iterator, List, Tuple

import pytest
from pymemcache.client.base import Client
from pymemcache.client.hash import HashClient
from pymemcache.exceptions import MemcacheError

from hrwhash import Placement
from hrwhash.errors import InvalidWeightError, UnknownNodeError
from hrwhash.pymemcache import Hasher

KEYS = [f"key-{i}" for i in range(10_000)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_memcached(port: int) -> "subprocess.Popen[bytes]":
    binary = shutil.which("memcached") or "/usr/bin/memcached"
    proc = subprocess.Popen(
        [binary, "-l", "127.0.0.1", "-p", str(port), "-U", "0", "-m", "64", "-u", "root"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"memcached exited: {proc.stderr.read().decode() if proc.stderr else ''}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"memcached did not listen on port {port}")


@pytest.fixture
def servers() -> Iterator[Dict[str, "subprocess.Popen[bytes]"]]:
    procs: Dict[str, "subprocess.Popen[bytes]"] = {}
    try:
        for _ in range(3):
            port = free_port()
            procs[f"127.0.0.1:{port}"] = start_memcached(port)
    except (OSError, RuntimeError) as e:
        for p in procs.values():
            p.kill()
        if os.environ.get("CI") == "true":
            pytest.fail(f"cannot start memcached: {e}")
        pytest.skip(f"cannot start memcached (install it, or set CI=true to make this fail): {e}")
    yield procs
    for p in procs.values():
        p.kill()
        p.wait()


def stored_on(server: str, keys: List[str]) -> Dict[str, bytes]:
    host, port = server.rsplit(":", 1)
    direct = Client((host, int(port)))
    found: Dict[str, bytes] = {}
    try:
        for i in range(0, len(keys), 500):
            found.update(direct.get_many(keys[i : i + 500]))
    finally:
        direct.close()
    return found


def test_hash_client_stores_every_key_on_its_owner(servers: Dict[str, "subprocess.Popen[bytes]"]) -> None:
    names = list(servers)
    # Writes wait for each server's reply and raise on any error: with ignore_exc, pymemcache's
    # set_many reports a timed-out batch as stored, and with noreply a later read on another
    # connection can overtake the write.
    writer = HashClient(names, hasher=Hasher, ignore_exc=False, default_noreply=False, connect_timeout=5, timeout=30)
    for i in range(0, len(KEYS), 1000):
        assert writer.set_many({k: k.encode() for k in KEYS[i : i + 1000]}) == []
    writer.close()
    client = HashClient(names, hasher=Hasher, retry_attempts=0, dead_timeout=3600, ignore_exc=True, connect_timeout=5, timeout=30)

    owner = dict(zip(KEYS, Placement(names).owners(KEYS)))
    where: Dict[str, List[str]] = {k: [] for k in KEYS}
    for server in names:
        for key, value in stored_on(server, KEYS).items():
            assert value == key.encode()
            where[key].append(server)
    for key in KEYS:
        assert where[key] == [owner[key]], key
    assert all(sum(1 for k in KEYS if owner[k] == s) > 2500 for s in names)

    dead = names[1]
    servers[dead].kill()
    servers[dead].wait()
    misses: List[str] = []
    for key in KEYS:
        value = client.get(key)
        if value is None:
            misses.append(key)
        else:
            assert value == key.encode()
    assert misses == [k for k in KEYS if owner[k] == dead]
    # The hasher now routes the dead server's keys to the survivors, as HRW does without it.
    survivors = Placement([n for n in names if n != dead])
    hasher = client.hasher
    assert isinstance(hasher, Hasher) and hasher.placement == survivors
    assert [hasher.get_node(k) for k in KEYS[:2000]] == survivors.owners(KEYS[:2000])


def test_hasher_protocol() -> None:
    h = Hasher()
    assert h.get_node("k") is None and h.placement is None
    h.add_node("a:1")
    h.add_node("b:2")
    h.add_node("a:1")  # already present: no change, like pymemcache's own hasher
    assert h.placement == Placement(["a:1", "b:2"])
    assert h.get_node("k") == Placement(["a:1", "b:2"]).owner("k")
    assert h.get_node(b"k") == h.get_node("k")
    with pytest.raises(UnknownNodeError):
        h.remove_node("c:3")
    with pytest.raises(ValueError):
        h.remove_node("c:3")
    h.remove_node("a:1")
    assert h.get_node("k") == "b:2"
    h.remove_node("b:2")
    assert h.get_node("k") is None
    with pytest.raises(ValueError):
        h.remove_node("b:2")


def test_hasher_options() -> None:
    seed = bytes(range(16))
    h = Hasher(["a:1", "b:2", "c:3"], seed=seed, weights={"c:3": 0.0})
    want = Placement(["a:1", "b:2", "c:3"], [1.0, 1.0, 0.0], seed=seed)
    assert h.placement == want
    assert all(h.get_node(k) != "c:3" for k in KEYS[:500])


def test_hasher_with_only_drained_servers_returns_no_server() -> None:
    h = Hasher(["a:1", "c:3"], weights={"c:3": 0.0})
    h.remove_node("a:1")  # the last selectable server leaves; a drained one remains
    assert h.placement is None and h.get_node("k") is None
    h.add_node("b:2")
    assert h.placement == Placement(["c:3", "b:2"], [0.0, 1.0])
    assert all(h.get_node(k) == "b:2" for k in KEYS[:100])
    first_drained = Hasher(weights={"c:3": 0.0})
    first_drained.add_node("c:3")
    assert first_drained.placement is None and first_drained.get_node("k") is None
    first_drained.remove_node("c:3")
    with pytest.raises(UnknownNodeError):
        first_drained.remove_node("c:3")
    with pytest.raises(InvalidWeightError):
        Hasher(weights={"a:1": -1.0})


def outcome(call: "functools.partial[object]") -> Tuple[str, object]:
    try:
        return "value", call()
    except Exception as e:  # the exception pymemcache lets through is what is compared
        return type(e).__name__, str(e) if isinstance(e, MemcacheError) else None


@pytest.mark.parametrize("ignore_exc", [True, False])
def test_hash_client_with_only_drained_servers_acts_as_with_none(
    servers: Dict[str, "subprocess.Popen[bytes]"], ignore_exc: bool
) -> None:
    live, drained = list(servers)[:2]
    options: Dict[str, object] = dict(retry_attempts=0, dead_timeout=3600, ignore_exc=ignore_exc, connect_timeout=5, timeout=30)
    ours = HashClient([live, drained], hasher=functools.partial(Hasher, weights={drained: 0.0}), **options)
    # pymemcache's own hasher, with only the live server, is what HashClient does by design.
    theirs = HashClient([live], **options)
    for client in (ours, theirs):
        assert client.set("k", b"v") is True and client.get("k") == b"v"
    servers[live].kill()
    servers[live].wait()
    # The first call finds the server dead and drops it; every later call has no server to ask.
    for _ in range(3):
        got = [outcome(functools.partial(c.get, "k")) for c in (ours, theirs)]
        assert got[0] == got[1], got
        got = [outcome(functools.partial(c.set, "k", b"w")) for c in (ours, theirs)]
        assert got[0] == got[1], got
    assert got[0] == (("value", False) if ignore_exc else ("MemcacheError", "All servers seem to be down right now"))
    hasher = ours.hasher
    assert isinstance(hasher, Hasher) and hasher.placement is None and hasher.get_node("k") is None
