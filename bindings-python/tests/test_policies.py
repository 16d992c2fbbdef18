"""Every case of conformance/policies/bounded-load.json and bounded-load-boundaries.json through
the binding, and every bad input of the policy (conformance/POLICIES.md)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

import hrwhash
from hrwhash import BoundedLoad, Placement

POLICIES = Path(__file__).resolve().parents[2] / "conformance" / "policies"
# The bounded-load-v1 files: the main one and the cases on the caps; every test below runs both.
BOUNDED_FILES: Dict[str, Dict[str, Any]] = {
    name: json.loads((POLICIES / name).read_text())
    for name in ["bounded-load.json", "bounded-load-boundaries.json"]
}


def bounded_cases(section: str) -> List[Any]:
    return [
        pytest.param(case, id=f"{file}:{case.get('name', case.get('factor'))}")
        for file, vectors in BOUNDED_FILES.items()
        for case in vectors[section]
    ]


def weight(value: Any) -> float:
    return float(value)


def membership(case: Dict[str, Any]) -> "Placement[bytes]":
    if "nodes" in case:
        ids = [bytes.fromhex(n["id"]) for n in case["nodes"]]
        weights = [weight(n.get("weight", 1.0)) for n in case["nodes"]]
    else:
        prefix = bytes.fromhex(case["node_prefix"])
        ids = [prefix + str(i).encode() for i in range(case["node_count"])]
        cycle = [weight(w) for w in case.get("weight_cycle", [1.0])]
        weights = [cycle[i % len(cycle)] for i in range(len(ids))]
    return Placement(ids, weights=weights)


def factor(case: Dict[str, Any]) -> Tuple[int, int]:
    return (case["factor"]["num"], case["factor"]["den"])


def test_policy_names() -> None:
    for vectors in BOUNDED_FILES.values():
        assert vectors["policy"] == hrwhash.BOUNDED_LOAD_POLICY == "bounded-load-v1"
        assert all(len(vectors[s]) > 0 for s in ["online", "batch", "factor_cases", "error_cases"])


@pytest.mark.parametrize("case", bounded_cases("online"))
def test_online(case: Dict[str, Any]) -> None:
    p = membership(case)
    b = BoundedLoad(p, factor(case))
    loads = [int(x) for x in case["loads"]]
    key = bytes.fromhex(case["key"])
    assert b.owner_index(key, loads) == case["expected"]["owner"]
    assert b.owner(key, loads) == p.nodes[case["expected"]["owner"]]


@pytest.mark.parametrize("case", bounded_cases("batch"))
def test_batch(case: Dict[str, Any]) -> None:
    b = BoundedLoad(membership(case), factor(case))
    keys = [case["key_prefix"] + str(i) for i in range(case["key_count"])]
    assert b.assign_indices(keys) == case["expected"]["owners"]


@pytest.mark.parametrize("case", bounded_cases("factor_cases"))
def test_float_factors(case: Dict[str, Any]) -> None:
    p = Placement(["a", "b"])
    c = weight(case["factor"])
    if "error" in case:
        with pytest.raises(hrwhash.errors.InvalidBalanceFactorError) as e:
            BoundedLoad(p, c)
        assert isinstance(e.value, ValueError)
    else:
        assert BoundedLoad(p, c).factor == (case["num"], case["den"])


@pytest.mark.parametrize("case", bounded_cases("error_cases"))
def test_bounded_errors(case: Dict[str, Any]) -> None:
    classes = {
        "LengthMismatch": hrwhash.errors.LengthMismatchError,
        "LoadOverflow": hrwhash.errors.LoadOverflowError,
        "InvalidBalanceFactor": hrwhash.errors.InvalidBalanceFactorError,
    }
    with pytest.raises(classes[case["error"]]):
        b = BoundedLoad(membership(case), factor(case))
        b.owner(bytes.fromhex(case["key"]), [int(x) for x in case["loads"]])


def test_bounded_misuse_is_invalid_argument() -> None:
    p = Placement(["a", "b", "c"])
    b = BoundedLoad(p, 1.25)
    for bad_c in ["1.25", None, True, (1,), (1, 2, 3), (True, 1), ("5", "4")]:
        with pytest.raises(hrwhash.errors.InvalidArgumentError):
            BoundedLoad(p, bad_c)  # type: ignore[arg-type]
    # Numbers that no (num, den) term can be: the factor is not usable (POLICIES.md), as in Node.
    for bad_pair, value in [((1.5, 1), 1.5), ((-1, 1), -1.0), ((2**32, 1), 2.0**32), ((5, 2**32), 5 / 2**32)]:
        with pytest.raises(hrwhash.errors.InvalidBalanceFactorError) as unusable:
            BoundedLoad(p, bad_pair)  # type: ignore[arg-type]
        assert unusable.value.value == value
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        BoundedLoad("not a placement", 1.25)  # type: ignore[arg-type]
    for bad_loads in ["012", b"\x00\x00\x00", 3, [0, 0, "0"], [0, 0, None], [0, True, 0]]:
        with pytest.raises(hrwhash.errors.InvalidArgumentError):
            b.owner("k", bad_loads)  # type: ignore[arg-type]
    # Loads are checked as counts are (POLICIES.md, "Online lookup"), as in Node: a float that is a
    # whole number is that load, any other number is InvalidCount at its position.
    out_of_range_loads: List[List[float]] = [
        [0, 0, -1], [0, 0, 2**64], [0, 0, 1.5], [0, 0, float("nan")], [0, 0, -1.0]
    ]
    for out_of_range in out_of_range_loads:
        with pytest.raises(hrwhash.errors.InvalidCountError) as count:
            b.owner("k", out_of_range)  # type: ignore[arg-type]
        assert count.value.index == 2
    for key in map(str, range(64)):
        assert b.owner(key, [0, 3.0, 1]) == b.owner(key, [0, 3, 1])  # type: ignore[list-item]
    with pytest.raises(hrwhash.errors.LengthMismatchError) as e:
        b.owner("k", [0, 0])
    assert (e.value.expected, e.value.actual) == (3, 2)
    with pytest.raises(hrwhash.errors.LoadOverflowError):
        b.owner("k", [2**64 - 1, 1, 0])
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        b.assign("one key")
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        b.assign(["a", None])  # type: ignore[list-item]
    assert b.factor == (1_250_000, 1_000_000)
    assert BoundedLoad(p, (5, 4)).factor == (5, 4)
    assert BoundedLoad(p, 2).factor == (2_000_000, 1_000_000)
    with pytest.raises(hrwhash.errors.InvalidBalanceFactorError):
        BoundedLoad(p, (3, 4))
    with pytest.raises(hrwhash.errors.InvalidBalanceFactorError):
        BoundedLoad(p, 10**400)


def test_online_caps_hold_over_a_stream() -> None:
    p = Placement([f"gpu-{i}" for i in range(8)])
    b = BoundedLoad(p, (11, 10))
    loads = [0] * 8
    for i in range(4000):
        total = sum(loads)
        cap = math.ceil(math.ceil((total + 1) * 11 / 10) / 8)
        n = b.owner_index(f"req-{i}", loads)
        assert loads[n] < cap
        loads[n] += 1
