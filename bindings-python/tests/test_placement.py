"""The Python face of Placement: types in and out, the container protocol, value semantics."""

from __future__ import annotations

import copy
import pickle
from typing import List, Union

import pytest

import hrwhash
from hrwhash import Placement

NODES = ["cache-a", "cache-b", "cache-c", "cache-d"]
KEYS = [f"key-{i}" for i in range(500)]


def test_node_ids_come_back_in_the_type_given() -> None:
    text = Placement(NODES)
    raw = Placement([n.encode() for n in NODES])
    for key in KEYS[:50]:
        owner = text.owner(key)
        assert isinstance(owner, str)
        # The id bytes decide the answer, so str and bytes ids agree.
        assert raw.owner(key) == owner.encode()
        assert all(isinstance(n, bytes) for n in raw.rank(key, 4))
    ids: List[Union[str, bytes]] = ["a", b"b"]
    mixed = Placement(ids)
    assert {type(mixed.owner(k)) for k in KEYS} == {str, bytes}


def test_every_key_type_is_the_same_key() -> None:
    p = Placement(NODES)
    for key in KEYS[:100]:
        b = key.encode()
        assert p.owner(key) == p.owner(b) == p.owner(bytearray(b)) == p.owner(memoryview(b))
    assert p.owner("ключ") == p.owner("ключ".encode())
    assert p.owner("") == p.owner(b"")
    assert p.owner(memoryview(b"xkeyx")[1:-1]) == p.owner(b"key")


def test_rank_ranking_and_batches_agree() -> None:
    p = Placement(NODES, [1.0, 2.0, 0.5, 0.0])
    for key in KEYS[:100]:
        full = list(p.ranking(key))
        assert sorted(full) == sorted(NODES[:3])  # the weight-0 node is never selected
        assert full[0] == p.owner(key)
        for k in range(6):
            assert p.rank(key, k) == full[:k]
    assert p.owners(KEYS) == [p.owner(k) for k in KEYS]
    assert p.owners(iter(KEYS)) == p.owners(tuple(KEYS))
    assert p.rank_many(KEYS, 2) == [p.rank(k, 2) for k in KEYS]
    assert p.rank_many(KEYS[:3], 0) == [[], [], []]
    assert p.owners([]) == [] and p.rank_many([], 3) == []
    ranking = p.ranking("x")
    assert ranking.__length_hint__() == 3
    next(ranking)
    assert ranking.__length_hint__() == 2


def test_container_protocol() -> None:
    p = Placement(NODES)
    assert len(p) == 4
    assert "cache-a" in p and b"cache-a" in p and "nope" not in p
    assert list(p) == NODES == list(p.nodes)
    assert p.weights == (1.0,) * 4 and p.domains is None
    assert p.seed == hrwhash.DEFAULT_SEED and not p.is_weighted


def test_value_semantics() -> None:
    p = Placement(NODES, [1.0, 2.0, 3.0, 4.0], seed=bytes(range(16)), domains=["r1", "r1", None, b"r2"])
    same = Placement(list(NODES), (1, 2, 3, 4), seed=bytearray(range(16)), domains=("r1", "r1", None, b"r2"))
    assert p == same and hash(p) == hash(same) and len({p, same}) == 1
    assert p != Placement(NODES, [1.0, 2.0, 3.0, 4.0], seed=bytes(range(16)))
    assert p != Placement(NODES, [1.0, 2.0, 3.0, 4.5], seed=bytes(range(16)), domains=["r1", "r1", None, b"r2"])
    assert Placement(NODES) != Placement(NODES, seed=bytes(16))
    assert Placement(["a"]) != Placement([b"a"])  # they answer in different types
    assert Placement(["a", "b"]) != Placement(["b", "a"])  # indices differ
    assert Placement(NODES) != NODES
    for restored in (pickle.loads(pickle.dumps(p, proto)) for proto in range(pickle.HIGHEST_PROTOCOL + 1)):
        assert restored == p
        assert restored.replicas("k", 3) == p.replicas("k", 3)
        assert restored.domains == p.domains and restored.seed == p.seed
    assert copy.copy(p) is p and copy.deepcopy(p) is p
    with pytest.raises(AttributeError):
        p.nodes = ()  # type: ignore[misc]


def test_repr_is_useful_and_hides_a_custom_seed() -> None:
    ids: List[Union[str, bytes]] = ["a", b"b"]
    assert repr(Placement(ids)) == "Placement(['a', b'b'])"
    r = repr(Placement(["a", "b"], [1.0, 2.5], seed=b"0123456789abcdef", domains=["x", None]))
    assert r == "Placement(['a', 'b'], weights=[1.0, 2.5], domains=['x', None], seed=<custom>)"
    assert "0123" not in r
    big = repr(Placement([f"n{i}" for i in range(100)]))
    assert big.startswith("Placement(['n0', 'n1',") and "<100 nodes>" in big and "n99" not in big


def test_mutations_return_new_placements() -> None:
    p = Placement(NODES)
    grown = p.with_node("cache-e", 2.0, domain="r9")
    assert list(grown) == NODES + ["cache-e"] and list(p) == NODES
    assert grown.weights[-1] == 2.0 and grown.domains == (None,) * 4 + ("r9",)
    # Adding a node moves only the keys the new node now owns.
    for key in KEYS:
        assert grown.owner(key) in (p.owner(key), "cache-e")
    shrunk = p.without_node("cache-b")
    assert list(shrunk) == ["cache-a", "cache-c", "cache-d"]
    for key in KEYS:
        if p.owner(key) != "cache-b":
            assert shrunk.owner(key) == p.owner(key)
    drained = p.with_weight(b"cache-c", 0)
    assert "cache-c" in drained and all(drained.owner(k) != "cache-c" for k in KEYS)
    assert drained.with_weight("cache-c", 1.0) == p


def test_replicas_spread_over_domains() -> None:
    p = Placement(["a1", "a2", "a3", "b1"], domains=["a", "a", "a", "b"])
    domain = dict(zip(p.nodes, p.domains or ()))
    for key in KEYS[:200]:
        two = p.replicas(key, 2)
        assert {domain[n] for n in two} == {"a", "b"}
        four = p.replicas(key, 10)
        assert sorted(four) == sorted(p.nodes) and four[:2] == two


def test_scores_order_an_unweighted_ranking() -> None:
    p = Placement(NODES)
    for key in KEYS[:100]:
        scores: List[int] = [p.score(key, n) for n in p.ranking(key)]
        assert scores == sorted(scores, reverse=True)
        assert all(0 <= s < 2**64 for s in scores)


def test_module_constants() -> None:
    assert hrwhash.ALGORITHM == "hrw-v1"
    assert hrwhash.DEFAULT_SEED == b"hrwhash-v1-seed." and len(hrwhash.DEFAULT_SEED) == 16
    assert isinstance(hrwhash.__version__, str) and hrwhash.__version__.count(".") == 2
    assert Placement[str] is not None  # usable as a generic type at runtime


def test_batches_across_chunk_boundaries() -> None:
    p = Placement([f"n{i}" for i in range(50)], [1.0 + i % 3 for i in range(50)])
    keys = [f"key-{i}" for i in range(3001)]
    singles = [p.owner(k) for k in keys]
    assert p.owners(keys) == singles
    assert p.owners(k for k in keys) == singles  # a generator of unknown length
    assert p.rank_many(keys, 50) == [list(p.ranking(k)) for k in keys]
    assert p.rank_many(iter(keys), 1) == [[o] for o in singles]
