"""Every bad input raises a typed error that says what was wrong, with which value."""

from __future__ import annotations

from typing import Any, Callable, Type

import pytest

import hrwhash
from hrwhash import Placement

P = Placement(["a", "b", "c"])

VARIANTS = [
    hrwhash.EmptyMembershipError,
    hrwhash.EmptyNodeIdError,
    hrwhash.DuplicateNodeIdError,
    hrwhash.InvalidWeightError,
    hrwhash.AllWeightsZeroError,
    hrwhash.InvalidSeedLengthError,
    hrwhash.LengthMismatchError,
    hrwhash.UnknownNodeError,
]


@pytest.mark.parametrize("cls", VARIANTS)
def test_hierarchy(cls: Type[Exception]) -> None:
    assert issubclass(cls, hrwhash.HrwError) and issubclass(cls, ValueError)
    assert cls.__module__ == "hrwhash"
    assert not issubclass(hrwhash.HrwError, ValueError)


def raises(cls: Type[BaseException], fn: Callable[[], Any], *fragments: str) -> BaseException:
    with pytest.raises(cls) as info:
        fn()
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    return info.value


def test_membership_errors() -> None:
    raises(hrwhash.EmptyMembershipError, lambda: Placement([]), "at least one node")
    e = raises(hrwhash.EmptyNodeIdError, lambda: Placement(["a", ""]), "index 1")
    assert isinstance(e, hrwhash.EmptyNodeIdError) and e.index == 1
    e = raises(hrwhash.DuplicateNodeIdError, lambda: Placement(["x", "y", "x"]), "index 2", "'x'")
    assert isinstance(e, hrwhash.DuplicateNodeIdError) and (e.index, e.first_index) == (2, 0)
    # str and bytes with the same bytes are the same node.
    raises(hrwhash.DuplicateNodeIdError, lambda: Placement(["x", b"x"]))
    raises(hrwhash.AllWeightsZeroError, lambda: Placement(["a", "b"], [0, 0.0]), "weight 0")


@pytest.mark.parametrize("w", [float("nan"), float("inf"), -1.0, -1e-300, 2.0**32, 1e-300])
def test_invalid_weights(w: float) -> None:
    e = raises(hrwhash.InvalidWeightError, lambda: Placement(["a", "b"], [1.0, w]), "'b'")
    assert isinstance(e, hrwhash.InvalidWeightError)
    assert e.value == w or (w != w and e.value != e.value)
    raises(hrwhash.InvalidWeightError, lambda: P.with_weight("a", w), "'a'")
    raises(hrwhash.InvalidWeightError, lambda: P.with_node("d", w), "'d'")


def test_seed_errors_never_print_the_seed() -> None:
    e = raises(hrwhash.InvalidSeedLengthError, lambda: Placement(["a"], seed=b"secret-15-bytes"), "got 15")
    assert isinstance(e, hrwhash.InvalidSeedLengthError) and e.length == 15
    assert "secret" not in str(e)
    raises(hrwhash.InvalidSeedLengthError, lambda: hrwhash.v1.key_digest("k", b""), "got 0")
    raises(TypeError, lambda: Placement(["a"], seed="0123456789abcdef"), "not str")  # type: ignore[arg-type]
    raises(TypeError, lambda: Placement(["a"], seed=16), "not int")  # type: ignore[arg-type]


def test_length_mismatches() -> None:
    e = raises(hrwhash.LengthMismatchError, lambda: Placement(["a", "b"], [1.0]), "expected 2", "got 1")
    assert isinstance(e, hrwhash.LengthMismatchError) and (e.expected, e.actual) == (2, 1)
    raises(hrwhash.LengthMismatchError, lambda: Placement(["a"], domains=["x", "y"]), "expected 1", "got 2")


def test_unknown_nodes() -> None:
    for fn in (
        lambda: P.without_node("zz"),
        lambda: P.with_weight(b"zz", 2.0),
        lambda: P.score("key", "zz"),
    ):
        raises(hrwhash.UnknownNodeError, fn, "'zz'")
    raises(hrwhash.DuplicateNodeIdError, lambda: P.with_node("a"), "'a'")


def test_wrong_types() -> None:
    bad: Any = 3
    raises(TypeError, lambda: Placement(["a", bad]), "index 1", "not int")
    raises(TypeError, lambda: Placement(["a", bytearray(b"b")]), "not bytearray")
    raises(TypeError, lambda: Placement("abc"), "single str")
    raises(TypeError, lambda: Placement(bad), "iterable")
    raises(TypeError, lambda: Placement(["a"], ["1.0"]), "weight of node 'a'", "not str")  # type: ignore[list-item]
    raises(TypeError, lambda: Placement(["a"], [None]), "not NoneType")  # type: ignore[list-item]
    raises(TypeError, lambda: Placement(["a"], domains=[1]), "failure domain at index 0", "not int")  # type: ignore[list-item]
    raises(TypeError, lambda: P.owner(bad), "key", "not int")
    raises(TypeError, lambda: P.owner(None), "not NoneType")  # type: ignore[arg-type]
    raises(TypeError, lambda: P.rank(1.5, 2), "not float")  # type: ignore[arg-type]
    raises(TypeError, lambda: P.rank("k", "2"))  # type: ignore[arg-type]
    raises(TypeError, lambda: P.owners("abc"), "single str")
    raises(TypeError, lambda: P.owners(["a", bad]), "not int")
    raises(TypeError, lambda: P.rank_many([b"a", None], 2), "not NoneType")  # type: ignore[list-item]
    raises(TypeError, lambda: P.owners(bad), "iterable")
    raises(TypeError, lambda: bad in P, "not int")
    raises(TypeError, lambda: P.with_node(bad), "not int")
    raises(TypeError, lambda: P.with_weight("a", "heavy"))  # type: ignore[arg-type]
    raises(TypeError, lambda: hrwhash.v1.node_digest(bad), "not int")
    raises(UnicodeEncodeError, lambda: P.owner("\ud800"))  # a lone surrogate has no UTF-8 form


def test_negative_k() -> None:
    raises(ValueError, lambda: P.rank("k", -1), "k must be >= 0, got -1")
    raises(ValueError, lambda: P.replicas("k", -2), "got -2")
    raises(ValueError, lambda: P.rank_many(["k"], -1), "got -1")
    raises(OverflowError, lambda: P.rank("k", 2**70))


def test_large_k_is_capped() -> None:
    assert len(P.rank("k", 2**40)) == 3
    assert [len(r) for r in P.rank_many(["k", "j"], 2**40)] == [3, 3]
