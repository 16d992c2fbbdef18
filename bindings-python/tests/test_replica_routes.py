"""Replica routes follow each side's replicas(), and replicas_strict() refuses to co-locate."""

from typing import Optional

import pytest

import hrwhash
from hrwhash import Placement, Transition


def zoned(lost: Optional[str] = None) -> Placement[str]:
    """Three zones of three nodes, without the zone named ``lost``."""
    zones = [z for z in "abc" if z != lost]
    ids = [f"{z}{i}" for z in zones for i in range(3)]
    return Placement(ids, domains=[i[0] for i in ids])


def test_route_top_is_replicas_on_both_sides() -> None:
    old, new = zoned(), zoned("c")
    t = Transition(old, new)
    ranked_differently = 0
    for i in range(10_000):
        key = f"key-{i}"
        top = t.route_top(key, 3)
        assert top.before == old.replicas(key, 3)
        assert top.after == new.replicas(key, 3)
        ranked_differently += old.rank(key, 3) != top.before
    # The plain ranking would route most keys from a set they are not stored on.
    assert ranked_differently > 5_000


def test_replicas_strict_refuses_fewer_domains_than_k() -> None:
    whole, lost = zoned(), zoned("b")
    for i in range(1_000):
        key = f"key-{i}"
        assert whole.replicas_strict(key, 3) == whole.replicas(key, 3)
        assert lost.replicas_strict(key, 2) == lost.replicas(key, 2)
    with pytest.raises(hrwhash.errors.InvalidReplicaCountError) as info:
        lost.replicas_strict("k", 3)
    assert (info.value.requested, info.value.available) == (3, 2)
    assert isinstance(info.value, ValueError)
    assert lost.replicas_strict("k", 0) == []
