"""Compatibility profiles (conformance/PROFILES.md): every recorded vector, bad input, and the
incumbents themselves side by side with hrwhash on 100,000 random keys."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Dict, List, Union

import pytest
import uhashring
from pymemcache.client.rendezvous import RendezvousHash

import hrwhash
from hrwhash import ProfilePlacement

PROFILES = Path(__file__).resolve().parents[2] / "conformance" / "profiles"
NAMES = ["go-redis-ring-v9", "pymemcache-rendezvous", "ketama-libmemcached", "hashring-node-3"]


def text(item: Dict[str, Any], name: str) -> Union[str, bytes]:
    """`name` as the vector files write it: text, or bytes given as `<name>_hex`."""
    if name in item:
        value: str = item[name]
        return value
    return bytes.fromhex(item[name + "_hex"])


@pytest.mark.parametrize("name", NAMES)
def test_every_recorded_lookup(name: str) -> None:
    doc = json.loads((PROFILES / f"{name}.json").read_text())
    assert doc["profile"] == name
    lookups = 0
    for case in doc["cases"]:
        ids = [text(n, "id") for n in case["nodes"]]
        weights = [n["weight"] for n in case["nodes"]] if "weight" in case["nodes"][0] else None
        p = ProfilePlacement(name, ids, weights)
        assert p.profile == name and len(p) == len(ids) and p.nodes == ids
        keys = [text(l, "key") for l in case["lookups"]]
        owners = [text(l, "owner") for l in case["lookups"]]
        assert p.owners(keys) == owners
        for key, lookup in zip(keys, case["lookups"]):
            assert p.owner(key) == text(lookup, "owner"), (name, key)
            if "replicas" in lookup:
                want = lookup["replicas"]
                for k in range(len(want) + 2):
                    assert p.replicas(key, k) == want[:k]
            else:
                with pytest.raises(hrwhash.errors.NotOfferedError):
                    p.replicas(key, 1)
            lookups += 1
    assert lookups > 100


def test_the_incumbents_own_test_answers() -> None:
    # pymemcache test_rendezvous.py and node-hashring tests/api.test.js.
    p = ProfilePlacement("pymemcache-rendezvous", ["0", "1", "2"])
    assert [p.owner(k) for k in ["ok", "mykey", "wat", "lol"]] == ["0", "1", "2", "2"]
    ring = ["192.168.0.102:11212", "192.168.0.103:11212", "192.168.0.104:11212"]
    h = ProfilePlacement("hashring-node-3", ring)
    assert h.owner("foo") == ring[0] and h.owner("pewpew") == ring[1]


def test_bad_input_is_a_typed_error() -> None:
    with pytest.raises(hrwhash.errors.UnknownProfileError) as unknown:
        ProfilePlacement("go-redis", ["a"])
    assert unknown.value.name == "go-redis" and isinstance(unknown.value, ValueError)
    with pytest.raises(hrwhash.errors.NotOfferedError) as weighted:
        ProfilePlacement("go-redis-ring-v9", ["a", "b"], [1, 2])
    assert weighted.value.profile == "go-redis-ring-v9"
    for w in [0, 0.5]:
        with pytest.raises(hrwhash.errors.NotOfferedError):
            ProfilePlacement("ketama-libmemcached", ["a:1", "b:1"], [1, w])
    with pytest.raises(hrwhash.errors.NotOfferedError):
        ProfilePlacement("pymemcache-rendezvous", ["a"]).replicas("k", 1)
    # Ids that read as two different libmemcached servers (PROFILES.md 4, "Nodes").
    for node_id in ["2001:db8::0", "2001:db8::11211", "/run/memcached.sock", "[::1"]:
        with pytest.raises(hrwhash.errors.NotOfferedError):
            ProfilePlacement("ketama-libmemcached", [node_id, "b:1"])
    with pytest.raises(hrwhash.errors.EmptyMembershipError):
        ProfilePlacement("hashring-node-3", [])
    with pytest.raises(hrwhash.errors.EmptyNodeIdError) as empty:
        ProfilePlacement("hashring-node-3", ["a", ""])
    assert empty.value.index == 1
    with pytest.raises(hrwhash.errors.DuplicateNodeIdError) as dup:
        ProfilePlacement("go-redis-ring-v9", ["a", "b", "a"])
    assert (dup.value.index, dup.value.first_index) == (2, 0)
    with pytest.raises(hrwhash.errors.LengthMismatchError):
        ProfilePlacement("hashring-node-3", ["a", "b"], [1])
    with pytest.raises(hrwhash.errors.InvalidWeightError):
        ProfilePlacement("hashring-node-3", ["a", "b"], [1, -1])
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        ProfilePlacement(3, ["a"])  # type: ignore[arg-type]
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        ProfilePlacement("hashring-node-3", "ab")
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        ProfilePlacement("hashring-node-3", ["a"], seed=b"x" * 16)  # type: ignore[call-arg]
    p = ProfilePlacement("hashring-node-3", ["a", "b"])
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        p.owner(None)  # type: ignore[arg-type]
    with pytest.raises(hrwhash.errors.InvalidTextError):
        p.owner("\ud800")
    with pytest.raises(hrwhash.errors.InvalidCountError):
        p.replicas("k", -1)
    with pytest.raises(hrwhash.errors.InvalidArgumentError) as at:
        p.owners(["a", 3])  # type: ignore[list-item]
    assert at.value.index == 1
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        ProfilePlacement("pymemcache-rendezvous", ["a"]).owner(memoryview(b"k"))


def random_keys(rng: random.Random, n: int, tags: bool = True) -> List[str]:
    """ASCII, Latin-1, CJK, emoji and `{hashtag}` keys of 0 to 24 characters."""
    alphabets = [
        "abcdefghijklmnopqrstuvwxyz0123456789:_-",
        "\u00e9\u00fc\u00df\u00e5\u00f8\u0161\u017e",
        "\u4e2d\u6587\u65e5\u672c\u8a9e",
        "\U0001f600\U0001f680\U0001f9e0\u2764\ufe0f",
    ]
    keys = []
    for _ in range(n):
        chars = "".join(rng.choice(alphabets[rng.randrange(4)]) for _ in range(rng.randrange(25)))
        if tags and rng.random() < 0.2:
            chars = f"user:{{{chars[:4]}}}:{chars[4:]}"
        keys.append(chars)
    return keys


def test_pymemcache_side_by_side() -> None:
    rng = random.Random(20261201)
    nodes = ["10.0.0.1:11211", "10.0.0.2:11211", "cache-\u00e9:11211", "node-\U0001f680:11211"]
    incumbent = RendezvousHash(list(nodes))
    ours = ProfilePlacement("pymemcache-rendezvous", nodes)
    keys: List[Union[str, bytes]] = list(random_keys(rng, 90_000))
    keys += [rng.randbytes(rng.randrange(12)) for _ in range(10_000)]
    want = [incumbent.get_node(k) for k in keys]
    got = ours.owners(keys)
    disagreements = [k for k, a, b in zip(keys, want, got) if a != b]
    assert disagreements == []
    assert len(set(got)) == len(nodes)


def test_uhashring_side_by_side() -> None:
    # uhashring's ketama ring is libmemcached's continuum for equal weights and ports other than
    # 11211 (PROFILES.md, section 4).
    rng = random.Random(7)
    nodes = [f"10.0.0.{i}:11212" for i in range(8)] + ["cache-\u00e9:11213"]
    incumbent = uhashring.HashRing(nodes=nodes, hash_fn="ketama")
    ours = ProfilePlacement("ketama-libmemcached", nodes)
    keys = random_keys(rng, 100_000)
    want = [incumbent.get_node(k) for k in keys]
    got = ours.owners(keys)
    assert [k for k, a, b in zip(keys, want, got) if a != b] == []


def test_a_transition_from_a_profile_counts_every_move_with_its_flow() -> None:
    ids = ["a:11211", "b:11211", "c:11211"]
    keys = [f"key-{i}" for i in range(5000)]
    for name in NAMES:
        old = ProfilePlacement(name, ids)
        new = hrwhash.Placement(ids + ["d:11211"])
        t = hrwhash.Transition(old, new)
        assert (t.old_placement, t.new_placement) == (old, new)
        d = t.diff(keys)
        assert d.keys == 5000
        moved = [(old.owner(k), new.owner(k)) for k in keys if old.owner(k) != new.owner(k)]
        assert d.moved == len(moved)
        assert [(k, a, b) for k, a, b in t.plan(keys)] == [
            (k, old.owner(k), new.owner(k)) for k in keys if old.owner(k) != new.owner(k)
        ]
        r = t.route(keys[0])
        assert (r.old, r.new) == (old.owner(keys[0]), new.owner(keys[0]))
        counts: Dict[Any, int] = {}
        for pair in moved:
            counts[pair] = counts.get(pair, 0) + 1
        assert {(a, b): c for a, b, c in d.flows} == counts
        assert [n for n, _, _ in d.nodes] == ids + ["d:11211"]
        assert sum(before for _, before, _ in d.nodes) == 5000
        # Owners only: no expected movement, no replica routes.
        assert (d.expected_moved, d.optimum, t.expected_moved, t.optimum) == (None,) * 4
        with pytest.raises(hrwhash.errors.NotOfferedError, match=name):
            t.route_top(keys[0], 2)
        # Between two profiles, and from a profile to itself.
        grown = ProfilePlacement(name, ids + ["d:11211"])
        g = hrwhash.Transition(old, grown).diff(keys)
        assert g.moved == sum(old.owner(k) != grown.owner(k) for k in keys)
        assert hrwhash.Transition(old, old).diff(keys).moved == 0
        assert hrwhash.Transition(new, old).diff(keys).moved == d.moved
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        hrwhash.Transition(ids, old)  # type: ignore[arg-type]
