"""Properties over random memberships, keys and weights, checked against SPEC.md's definitions
written here in Python on top of the hrw-v1 primitives."""

from __future__ import annotations

from functools import cmp_to_key
from typing import List, Optional, Tuple

from hypothesis import given, settings
from hypothesis import strategies as st

from hrwhash import Placement, v1

ids = st.lists(st.binary(min_size=1, max_size=12), min_size=1, max_size=40, unique=True)
keys = st.lists(st.binary(max_size=40), min_size=1, max_size=20)
weight = st.one_of(st.just(0.0), st.just(1.0), st.floats(min_value=1e-6, max_value=1e6))
seeds = st.one_of(st.none(), st.binary(min_size=16, max_size=16))


@st.composite
def memberships(draw: st.DrawFn) -> Tuple[List[bytes], List[float], Optional[bytes]]:
    nodes = draw(ids)
    weights = draw(st.lists(weight, min_size=len(nodes), max_size=len(nodes)))
    if all(w == 0 for w in weights):
        weights[draw(st.integers(0, len(nodes) - 1))] = 1.0
    return nodes, weights, draw(seeds)


def spec_ranking(nodes: List[bytes], weights: List[float], seed: Optional[bytes], key: bytes) -> List[bytes]:
    """SPEC.md 5.3: smaller draw / weight first, then higher score, then smaller id."""
    kd = v1.key_digest(key, seed)
    entries = []
    for node, w in zip(nodes, weights):
        fixed = v1.weight_to_fixed(w)
        if fixed:
            s = v1.score(kd, v1.node_digest(node, seed))
            entries.append((node, fixed, s, v1.draw(s)))

    def order(a: Tuple[bytes, int, int, int], b: Tuple[bytes, int, int, int]) -> int:
        lhs, rhs = a[3] * b[1], b[3] * a[1]
        if lhs != rhs:
            return -1 if lhs < rhs else 1
        if a[2] != b[2]:
            return -1 if a[2] > b[2] else 1
        return -1 if a[0] < b[0] else (1 if a[0] > b[0] else 0)

    return [e[0] for e in sorted(entries, key=cmp_to_key(order))]


@settings(max_examples=300, deadline=None)
@given(memberships(), keys, st.integers(0, 45))
def test_lookups_follow_the_spec(m: Tuple[List[bytes], List[float], Optional[bytes]], ks: List[bytes], k: int) -> None:
    nodes, weights, seed = m
    p = Placement(nodes, weights, seed=seed)
    for key in ks:
        want = spec_ranking(nodes, weights, seed, key)
        assert list(p.ranking(key)) == want
        assert p.owner(key) == want[0]
        assert p.rank(key, k) == want[:k]
    assert p.owners(ks) == [spec_ranking(nodes, weights, seed, key)[0] for key in ks]
    assert p.rank_many(ks, k) == [p.rank(key, k) for key in ks]


@settings(max_examples=200, deadline=None)
@given(memberships(), st.binary(min_size=1, max_size=12), keys)
def test_membership_changes_move_only_the_changed_nodes_keys(
    m: Tuple[List[bytes], List[float], Optional[bytes]], extra: bytes, ks: List[bytes]
) -> None:
    nodes, weights, seed = m
    p = Placement(nodes, weights, seed=seed)
    if extra not in p:
        grown = p.with_node(extra)
        for key in ks:
            assert grown.owner(key) in (p.owner(key), extra)
    if len(nodes) > 1:
        gone = nodes[0]
        if any(w for n, w in zip(nodes, weights) if n != gone):
            shrunk = p.without_node(gone)
            for key in ks:
                if p.owner(key) != gone:
                    assert shrunk.owner(key) == p.owner(key)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=20, unique=True), st.lists(st.text(max_size=30), max_size=20))
def test_text_is_its_utf8_bytes(nodes: List[str], ks: List[str]) -> None:
    text = Placement(nodes)
    raw = Placement([n.encode() for n in nodes])
    assert [o.encode() for o in text.owners(ks)] == raw.owners([k.encode() for k in ks])
    assert text.owners(ks) == [text.owner(bytearray(k.encode())) for k in ks]
