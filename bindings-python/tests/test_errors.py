"""Every bad input raises a typed error that says what was wrong, with which value."""

from __future__ import annotations

import builtins
import json
import pickle
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Dict, Iterable, List, Set, Type

import pytest

import hrwhash
from hrwhash import Placement

P = Placement(["a", "b", "c"])

VARIANTS = [
    hrwhash.errors.EmptyMembershipError,
    hrwhash.errors.EmptyNodeIdError,
    hrwhash.errors.DuplicateNodeIdError,
    hrwhash.errors.InvalidWeightError,
    hrwhash.errors.AllWeightsZeroError,
    hrwhash.errors.InvalidSeedLengthError,
    hrwhash.errors.LengthMismatchError,
    hrwhash.errors.UnknownNodeError,
    hrwhash.errors.InvalidTextError,
    hrwhash.errors.InvalidCountError,
    hrwhash.errors.ResultTooLargeError,
]


@pytest.mark.parametrize("cls", VARIANTS)
def test_hierarchy(cls: Type[Exception]) -> None:
    assert issubclass(cls, hrwhash.HrwError) and issubclass(cls, ValueError)
    assert not issubclass(cls, TypeError)
    assert cls.__module__ == "hrwhash.errors"
    assert not issubclass(hrwhash.HrwError, ValueError)


def test_misuse_is_a_type_error() -> None:
    cls = hrwhash.errors.InvalidArgumentError
    assert issubclass(cls, hrwhash.HrwError) and issubclass(cls, TypeError)
    assert not issubclass(cls, ValueError) and cls.__module__ == "hrwhash.errors"


ERRORS_FILE = Path(__file__).resolve().parents[2] / "conformance" / "errors.json"
# The kinds Python raises: every kind of the table but the C ABI's own statuses.
KINDS: List[Dict[str, Any]] = [
    k for k in json.loads(ERRORS_FILE.read_text(encoding="utf-8"))["kinds"] if k["scope"] != "c"
]


@pytest.mark.parametrize("kind", KINDS, ids=[k["name"] for k in KINDS])
def test_every_kind_of_the_error_table_has_its_class(kind: Dict[str, Any]) -> None:
    cls = getattr(hrwhash.errors, kind["name"] + "Error")
    assert issubclass(cls, hrwhash.HrwError)
    assert issubclass(cls, getattr(builtins, kind["python"]))
    assert cls.__module__ == "hrwhash.errors" and kind["name"] + "Error" in hrwhash.errors.__all__
    details = {f.get("as", f["name"]): i for i, f in enumerate(kind.get("fields", []))}
    error = cls("message", **details)
    assert str(error) == "message"
    for name, value in details.items():
        assert getattr(error, name) == value, name
    # Pickled by the module the class lives in, so it comes back as the same class.
    for proto in range(pickle.HIGHEST_PROTOCOL + 1):
        restored = pickle.loads(pickle.dumps(error, proto))
        assert type(restored) is cls and str(restored) == "message"
        for name, value in details.items():
            assert getattr(restored, name) == value, (proto, name)


def error_classes(module: ModuleType, names: Iterable[str]) -> Set[str]:
    """The exception classes among `module`'s `names`."""
    values = {name: getattr(module, name) for name in names}
    return {n for n, v in values.items() if isinstance(v, type) and issubclass(v, BaseException)}


def test_every_error_class_is_in_the_error_table() -> None:
    assert error_classes(hrwhash.errors, hrwhash.errors.__all__) == {"HrwError"} | {
        k["name"] + "Error" for k in KINDS
    }
    # __all__ leaves no class of the module out.
    assert error_classes(hrwhash.errors, dir(hrwhash.errors)) == set(hrwhash.errors.__all__)


def test_the_package_root_exports_only_the_base_class() -> None:
    assert hrwhash.HrwError is hrwhash.errors.HrwError
    assert "errors" in hrwhash.__all__
    assert error_classes(hrwhash, hrwhash.__all__) == {"HrwError"}
    assert error_classes(hrwhash, [n for n in dir(hrwhash) if not n.startswith("_")]) == {"HrwError"}


@pytest.mark.parametrize("kind", KINDS, ids=[k["name"] for k in KINDS])
def test_a_kind_is_not_importable_from_the_package_root(kind: Dict[str, Any]) -> None:
    name = kind["name"] + "Error"
    with pytest.raises(ImportError, match=f"cannot import name '{name}' from 'hrwhash'"):
        exec(f"from hrwhash import {name}", {})
    with pytest.raises(AttributeError, match=name):
        getattr(hrwhash, name)
    scope: Dict[str, Any] = {}
    exec(f"from hrwhash.errors import {name}", scope)
    assert scope[name] is getattr(hrwhash.errors, name)


def raises(cls: Type[BaseException], fn: Callable[[], Any], *fragments: str) -> BaseException:
    with pytest.raises(cls) as info:
        fn()
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    return info.value


def test_membership_errors() -> None:
    raises(hrwhash.errors.EmptyMembershipError, lambda: Placement([]), "at least one node")
    e = raises(hrwhash.errors.EmptyNodeIdError, lambda: Placement(["a", ""]), "index 1")
    assert isinstance(e, hrwhash.errors.EmptyNodeIdError) and e.index == 1
    e = raises(hrwhash.errors.DuplicateNodeIdError, lambda: Placement(["x", "y", "x"]), "index 2", "'x'")
    assert isinstance(e, hrwhash.errors.DuplicateNodeIdError) and (e.index, e.first_index) == (2, 0)
    # str and bytes with the same bytes are the same node.
    raises(hrwhash.errors.DuplicateNodeIdError, lambda: Placement(["x", b"x"]))
    raises(hrwhash.errors.AllWeightsZeroError, lambda: Placement(["a", "b"], [0, 0.0]), "weight 0")


@pytest.mark.parametrize("w", [float("nan"), float("inf"), -1.0, -1e-300, 2.0**32, 1e-300])
def test_invalid_weights(w: float) -> None:
    e = raises(hrwhash.errors.InvalidWeightError, lambda: Placement(["a", "b"], [1.0, w]), "'b'")
    assert isinstance(e, hrwhash.errors.InvalidWeightError)
    assert e.value == w or (w != w and e.value != e.value)
    raises(hrwhash.errors.InvalidWeightError, lambda: P.with_weight("a", w), "'a'")
    raises(hrwhash.errors.InvalidWeightError, lambda: P.with_node("d", w), "'d'")


def test_seed_errors_never_print_the_seed() -> None:
    e = raises(hrwhash.errors.InvalidSeedLengthError, lambda: Placement(["a"], seed=b"secret-15-bytes"), "got 15")
    assert isinstance(e, hrwhash.errors.InvalidSeedLengthError) and e.length == 15
    assert "secret" not in str(e)
    raises(hrwhash.errors.InvalidSeedLengthError, lambda: hrwhash.v1.key_digest("k", b""), "got 0")
    raises(hrwhash.errors.InvalidArgumentError, lambda: Placement(["a"], seed="0123456789abcdef"), "is a str")  # type: ignore[arg-type]
    raises(hrwhash.errors.InvalidArgumentError, lambda: Placement(["a"], seed=16), "is int")  # type: ignore[arg-type]


def test_length_mismatches() -> None:
    e = raises(hrwhash.errors.LengthMismatchError, lambda: Placement(["a", "b"], [1.0]), "expected 2", "got 1")
    assert isinstance(e, hrwhash.errors.LengthMismatchError) and (e.expected, e.actual) == (2, 1)
    raises(hrwhash.errors.LengthMismatchError, lambda: Placement(["a"], domains=["x", "y"]), "expected 1", "got 2")


def test_unknown_nodes() -> None:
    for fn in (
        lambda: P.without_node("zz"),
        lambda: P.with_weight(b"zz", 2.0),
        lambda: P.score("key", "zz"),
    ):
        raises(hrwhash.errors.UnknownNodeError, fn, "'zz'")
    raises(hrwhash.errors.DuplicateNodeIdError, lambda: P.with_node("a"), "'a'")


def test_wrong_types() -> None:
    bad: Any = 3
    misuse = hrwhash.errors.InvalidArgumentError

    def at(index: Any, fn: Callable[[], Any], *fragments: str) -> None:
        e = raises(misuse, fn, *fragments)
        assert isinstance(e, misuse)
        assert e.index == index, (e.index, str(e))

    at(1, lambda: Placement(["a", bad]), "node id at index 1", "int 3")
    at(1, lambda: Placement(["a", bytearray(b"b")]), "is bytearray")
    at(3, lambda: Placement(["a", "b", "c", None]), "index 3", "NoneType")
    at(None, lambda: Placement(bad), "not an iterable")
    at(0, lambda: Placement(["a"], ["1.0"]), "weight at index 0", "str '1.0'")  # type: ignore[list-item]
    at(0, lambda: Placement(["a"], [None]), "NoneType")  # type: ignore[list-item]
    at(0, lambda: Placement(["a"], domains=[1]), "failure domain at index 0", "int 1")  # type: ignore[list-item]
    at(None, lambda: P.owner(bad), "the key is int 3")
    at(None, lambda: P.owner(None), "NoneType")  # type: ignore[arg-type]
    at(None, lambda: P.rank(1.5, 2), "float 1.5")  # type: ignore[arg-type]
    at(None, lambda: P.rank("k", "2"), "k is str '2'")  # type: ignore[arg-type]
    at(None, lambda: P.rank("k", None), "k is NoneType")  # type: ignore[arg-type]
    at(1, lambda: P.owners(["a", bad]), "key at index 1", "int 3")
    at(1, lambda: P.rank_many([b"a", None], 2), "NoneType")  # type: ignore[list-item]
    at(None, lambda: P.owners(bad), "not an iterable")
    at(None, lambda: bad in P, "int 3")
    at(None, lambda: P.with_node(bad), "int 3")
    at(None, lambda: P.with_weight("a", "heavy"), "str 'heavy'")  # type: ignore[arg-type]
    at(None, lambda: P.with_weight("a", None), "NoneType")  # type: ignore[arg-type]
    at(None, lambda: P.score("k", 5), "node id is int 5")  # type: ignore[arg-type]
    at(None, lambda: hrwhash.v1.node_digest(bad), "int 3")
    at(None, lambda: hrwhash.v1.weight_to_fixed("1"), "str '1'")  # type: ignore[arg-type]


@pytest.mark.parametrize("single", ["abc", b"abc", bytearray(b"abc"), memoryview(b"abc")])
def test_a_single_value_is_not_a_list(single: Any) -> None:
    # Iterating would make nodes a, b, c (or 97, 98, 99) out of one string.
    misuse = hrwhash.errors.InvalidArgumentError
    raises(misuse, lambda: Placement(single), "nodes is a single")
    raises(misuse, lambda: Placement(["a", "b", "c"], single), "weights is a single")
    raises(misuse, lambda: Placement(["a", "b", "c"], domains=single), "domains is a single")
    raises(misuse, lambda: P.owners(single), "keys is a single")
    raises(misuse, lambda: P.rank_many(single, 1), "keys is a single")


def test_booleans_are_not_numbers() -> None:
    # bool is an int subclass, so True used to be weight 1 and k = 1.
    misuse = hrwhash.errors.InvalidArgumentError
    e = raises(misuse, lambda: Placement(["a", "b"], [1.0, True]), "weight at index 1", "bool True")
    assert isinstance(e, misuse) and e.index == 1
    raises(misuse, lambda: Placement(["a", "b"], [False, 1.0]), "bool False")
    raises(misuse, lambda: P.with_node("d", True), "bool True")
    raises(misuse, lambda: P.with_weight("a", False), "bool False")
    raises(misuse, lambda: hrwhash.v1.weight_to_fixed(True), "bool True")
    for call in (P.rank, P.replicas):
        raises(misuse, lambda: call("k", True), "k is bool True")
        raises(misuse, lambda: call("k", False), "k is bool False")
    raises(misuse, lambda: P.rank_many(["k"], True), "k is bool True")


@pytest.mark.parametrize(
    "text, index, where",
    [
        ("\ud800", 1, "node id at index 1"),
        ("k\udfff", 1, "node id at index 1"),
    ],
)
def test_lone_surrogate_ids(text: str, index: int, where: str) -> None:
    e = raises(hrwhash.errors.InvalidTextError, lambda: Placement(["a", text]), where, repr(text), "no UTF-8 form")
    assert isinstance(e, hrwhash.errors.InvalidTextError) and e.index == index


def test_lone_surrogates_are_text_errors_everywhere() -> None:
    text = hrwhash.errors.InvalidTextError

    def at(index: Any, fn: Callable[[], Any], *fragments: str) -> None:
        e = raises(text, fn, *fragments)
        assert isinstance(e, text)
        assert e.index == index, (e.index, str(e))

    # Never a UnicodeEncodeError, and never hashed as some other key.
    at(None, lambda: P.owner("k\ud800"), "the key 'k\\ud800'")
    at(None, lambda: P.rank("\udc00", 2), "the key")
    at(None, lambda: P.replicas("\udc00", 2), "the key")
    at(None, lambda: P.ranking("\udc00"), "the key")
    at(2, lambda: P.owners(["a", "b", "\udc00"]), "key at index 2")
    at(1, lambda: P.rank_many(["a", "\ud800"], 2), "key at index 1")
    at(1, lambda: Placement(["a", "b"], domains=["x", "\udc00"]), "failure domain at index 1")
    at(None, lambda: P.with_node("\ud800"), "the node id")
    at(None, lambda: P.with_node("d", domain="\ud800"), "the failure domain")
    at(None, lambda: P.without_node("\ud800"), "the node id")
    at(None, lambda: P.with_weight("\ud800", 2.0), "the node id")
    at(None, lambda: P.score("k", "\ud800"), "the node id")
    at(None, lambda: "\ud800" in P, "the node id")
    at(None, lambda: hrwhash.v1.key_digest("\ud800"), "the key")
    at(None, lambda: hrwhash.v1.node_digest("\udc00"), "the node id")
    # A pair of surrogates is one valid character, not an error.
    assert P.owner("\U0001f600") == P.owner("\U0001f600".encode())


def test_released_buffers() -> None:
    view = memoryview(b"key")
    view.release()
    misuse = hrwhash.errors.InvalidArgumentError
    raises(misuse, lambda: P.owner(view), "the key is a released memoryview")
    e = raises(misuse, lambda: P.owners([b"a", view]), "key at index 1 is a released memoryview")
    assert isinstance(e, misuse) and e.index == 1
    raises(misuse, lambda: P.rank(view, 1), "released")
    raises(misuse, lambda: hrwhash.v1.key_digest(view), "released")
    seed = memoryview(bytes(16))
    seed.release()
    raises(misuse, lambda: Placement(["a"], seed=seed), "the seed is a released memoryview")
    raises(misuse, lambda: hrwhash.v1.key_digest("k", seed), "the seed is a released memoryview")


def test_unknown_keywords() -> None:
    kw: Any = {"domainz": ["x", "y"]}
    misuse = hrwhash.errors.InvalidArgumentError
    raises(misuse, lambda: Placement(["a", "b"], **kw), "unknown keyword argument 'domainz'")
    domian: Any = {"domian": "x"}
    sed: Any = {"sed": bytes(16)}
    raises(misuse, lambda: P.with_node("d", **domian), "'domian'")
    raises(misuse, lambda: hrwhash.v1.key_digest("k", **sed), "'sed'")
    raises(misuse, lambda: hrwhash.v1.node_digest("a", **sed), "'sed'")
    # Calls without options get Python's own TypeError for an unknown keyword.
    kk: Any = {"kk": 2}
    raises(TypeError, lambda: P.rank("k", **kk))


@pytest.mark.parametrize(
    "k, problem",
    [
        (-1, "k is -1: negative"),
        (-(2**70), "negative"),
        (1.5, "k is 1.5: not an integer"),
        (-2.0, "negative"),
        (float("nan"), "k is nan: not a number"),
        (float("inf"), "k is inf: infinite"),
        (float("-inf"), "infinite"),
        (2**64, "k is 18446744073709551616: above the largest size"),
        (2.0**64, "above the largest size"),
    ],
)
def test_invalid_counts(k: Any, problem: str) -> None:
    for fn in (lambda: P.rank("k", k), lambda: P.replicas("k", k), lambda: P.rank_many(["k"], k)):
        e = raises(hrwhash.errors.InvalidCountError, fn, problem)
        assert isinstance(e, hrwhash.errors.InvalidCountError)
        assert e.value is k


def test_counts_that_are_integers() -> None:
    class Index:
        def __index__(self) -> int:
            return 2

    two: Any = 2.0
    assert len(P.rank("k", two)) == 2
    assert len(P.rank("k", Index())) == 2
    assert P.rank("k", 2**64 - 1) == P.rank("k", 3)
    assert P.rank_many(["a", "b"], 2**64 - 1) == P.rank_many(["a", "b"], 3)


def test_exact_ints_and_their_subclasses_count_alike() -> None:
    # An exact int takes a shortcut; subclasses, the largest exact ints and str subclasses as
    # keys take the general path, with the same answers.
    class Count(int):
        pass

    class Key(str):
        pass

    for k in (0, 1, 2, 3, 2**63 - 1, 2**63, 2**64 - 1):
        assert P.rank("k", k) == P.rank("k", Count(min(k, 3))) == P.rank(Key("k"), k)
        assert P.rank("k", k) == P.rank("k", 3)[: min(k, 3)]
    raises(hrwhash.errors.InvalidArgumentError, lambda: P.rank("k", False))
    e = raises(hrwhash.errors.InvalidCountError, lambda: P.rank("k", Count(-1)), "negative")
    assert isinstance(e, hrwhash.errors.InvalidCountError)


def test_argument_order() -> None:
    # API.md 4: types before text, text before lengths, lengths before SPEC.md 7.
    raises(hrwhash.errors.InvalidArgumentError, lambda: Placement(["\ud800", 5]))
    raises(hrwhash.errors.InvalidArgumentError, lambda: Placement(["\ud800"], [True]))
    raises(hrwhash.errors.InvalidArgumentError, lambda: Placement(["\ud800"], seed=5))  # type: ignore[arg-type]
    raises(hrwhash.errors.InvalidTextError, lambda: Placement(["\ud800"], [1.0, 2.0]))
    raises(hrwhash.errors.LengthMismatchError, lambda: Placement(["a"], [1.0, 2.0], seed=b"short"))
    raises(hrwhash.errors.InvalidSeedLengthError, lambda: Placement([""], [-1.0], seed=b"short"))
    raises(hrwhash.errors.InvalidArgumentError, lambda: P.rank("\ud800", True))
    raises(hrwhash.errors.InvalidTextError, lambda: P.rank("\ud800", -1))
    raises(hrwhash.errors.InvalidArgumentError, lambda: P.rank_many(["\ud800", 5], 1))  # type: ignore[list-item]
    raises(hrwhash.errors.InvalidTextError, lambda: P.rank_many(["\ud800"], -1))
    raises(hrwhash.errors.InvalidArgumentError, lambda: P.score(5, "\ud800"))  # type: ignore[arg-type]
    raises(hrwhash.errors.InvalidTextError, lambda: P.score("\ud800", "zz"))
    raises(hrwhash.errors.UnknownNodeError, lambda: P.with_weight("zz", -1.0))
    # Batches are read in chunks of about a thousand keys; the order holds across chunks.
    late: Any = ["\ud800"] + ["a"] * 2500 + [5]
    e = raises(hrwhash.errors.InvalidArgumentError, lambda: P.owners(late), "key at index 2501")
    assert isinstance(e, hrwhash.errors.InvalidArgumentError) and e.index == 2501
    e = raises(hrwhash.errors.InvalidTextError, lambda: P.owners(iter(["a"] * 1500 + ["\udc00"] + ["b"] * 10)))
    assert isinstance(e, hrwhash.errors.InvalidTextError) and e.index == 1500
    e = raises(hrwhash.errors.InvalidTextError, lambda: P.rank_many(["a"] * 3000 + ["\udc00"], 1))
    assert isinstance(e, hrwhash.errors.InvalidTextError) and e.index == 3000


def test_weight_messages_name_the_problem() -> None:
    e = raises(hrwhash.errors.InvalidWeightError, lambda: Placement(["a", "b"], [1.0, 1e-12]), "'b' (index 1)", "1e-12")
    # 1e-12 is finite, >= 0 and < 2**32: the message must not state those rules as the problem.
    assert "finite" not in str(e) and ">= 0" not in str(e) and "at most 2**-33" in str(e)
    assert isinstance(e, hrwhash.errors.InvalidWeightError) and e.index == 1
    e = raises(hrwhash.errors.InvalidWeightError, lambda: P.with_node("d", 2**2000), "too large for a float")
    assert isinstance(e, hrwhash.errors.InvalidWeightError) and e.value == 2**2000 and e.index == 3
    e = raises(hrwhash.errors.InvalidWeightError, lambda: P.with_weight("c", -1), "'c' (index 2) is -1: negative")
    assert isinstance(e, hrwhash.errors.InvalidWeightError) and e.index == 2
    e = raises(hrwhash.errors.InvalidWeightError, lambda: hrwhash.v1.weight_to_fixed(2.0**32), "not below 2**32")
    assert isinstance(e, hrwhash.errors.InvalidWeightError) and e.index is None


def test_results_too_large_are_refused_before_any_work() -> None:
    # 2**16 keys x 2**16 nodes is 2**32 ids, one more than the longest answer allowed.
    big = Placement([f"n{i}" for i in range(2**16)])
    keys = [f"k{i}" for i in range(2**16)]
    e = raises(hrwhash.errors.ResultTooLargeError, lambda: big.rank_many(keys, 2**16), "65536 keys", "4294967296 ids")
    assert isinstance(e, hrwhash.errors.ResultTooLargeError)
    raises(hrwhash.errors.ResultTooLargeError, lambda: big.rank_many(iter(keys), 2**64 - 1))
    assert len(big.rank_many(keys[:4], 2**64 - 1)) == 4  # k is capped at the nodes, not sized


def test_large_k_is_capped() -> None:
    assert len(P.rank("k", 2**40)) == 3
    assert [len(r) for r in P.rank_many(["k", "j"], 2**40)] == [3, 3]


def test_a_huge_length_hint_sizes_nothing() -> None:
    # Python's nearest thing to an array-like of huge length and no elements (API.md 3): lists are
    # read element by element, never sized from what an iterator says its length will be.
    class Hinted:
        def __init__(self, hint: int) -> None:
            self.hint = hint

        def __iter__(self) -> "Hinted":
            return self

        def __next__(self) -> str:
            raise StopIteration

        def __length_hint__(self) -> int:
            return self.hint

    for hint in (2**40, 2**62, 2**100):
        assert P.owners(Hinted(hint)) == [] and P.rank_many(Hinted(hint), 2) == []
        raises(hrwhash.errors.EmptyMembershipError, lambda: Placement(Hinted(hint)))
        weights: Any = Hinted(hint)
        raises(hrwhash.errors.LengthMismatchError, lambda: Placement(["a"], weights), "0 weights for 1 nodes")
