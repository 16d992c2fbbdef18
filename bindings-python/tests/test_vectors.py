"""Every case of conformance/vectors.json and conformance/vectors-edge.json, the answers every
hrwhash binding must give."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Type

import pytest

import hrwhash
from hrwhash import v1

CONFORMANCE = Path(__file__).resolve().parents[2] / "conformance"
VECTORS = CONFORMANCE / "vectors.json"
DATA: Dict[str, Any] = json.loads(VECTORS.read_text())
# Same format and default seed; every test below runs its entries too.
FILES: Dict[str, Dict[str, Any]] = {
    "vectors": DATA,
    "edge": json.loads((CONFORMANCE / "vectors-edge.json").read_text()),
}


def entries(section: str, label: Callable[[Dict[str, Any]], str]) -> List[Any]:
    """Every entry of one section of both files, as pytest params named file:label."""
    return [pytest.param(c, id=f"{f}:{label(c)}") for f, d in FILES.items() for c in d[section]]

ERRORS: Dict[str, Type[hrwhash.HrwError]] = {
    "EmptyMembership": hrwhash.errors.EmptyMembershipError,
    "EmptyNodeId": hrwhash.errors.EmptyNodeIdError,
    "DuplicateNodeId": hrwhash.errors.DuplicateNodeIdError,
    "InvalidWeight": hrwhash.errors.InvalidWeightError,
    "AllWeightsZero": hrwhash.errors.AllWeightsZeroError,
    "InvalidSeedLength": hrwhash.errors.InvalidSeedLengthError,
    "LengthMismatch": hrwhash.errors.LengthMismatchError,
    "UnknownNode": hrwhash.errors.UnknownNodeError,
}


def number(value: Any) -> float:
    return float(value)  # float("NaN"), float("Infinity"), float("-Infinity") and plain numbers


def seed_of(case: Dict[str, Any]) -> bytes:
    return bytes.fromhex(case.get("seed", DATA["default_seed"]))


def membership(case: Dict[str, Any]) -> "tuple[List[bytes], List[float], Optional[List[Optional[bytes]]]]":
    if "nodes" in case:
        nodes = case["nodes"]
        ids = [bytes.fromhex(n["id"]) for n in nodes]
        weights = [number(n.get("weight", 1.0)) for n in nodes]
        domains: Optional[List[Optional[bytes]]] = None
        if any("domain" in n for n in nodes):
            domains = [bytes.fromhex(n["domain"]) if "domain" in n else None for n in nodes]
        return ids, weights, domains
    prefix = bytes.fromhex(case["node_prefix"])
    ids = [prefix + str(i).encode() for i in range(case["node_count"])]
    cycle = case.get("weight_cycle", [1.0])
    return ids, [float(cycle[i % len(cycle)]) for i in range(len(ids))], None


def test_file_is_hrw_v1() -> None:
    assert DATA["algorithm"] == hrwhash.ALGORITHM == "hrw-v1"
    assert bytes.fromhex(DATA["default_seed"]) == hrwhash.DEFAULT_SEED
    assert len(DATA["cases"]) > 1000
    for data in FILES.values():
        assert data["algorithm"] == "hrw-v1" and data["default_seed"] == DATA["default_seed"]


@pytest.mark.parametrize("case", entries("cases", lambda c: str(c["name"])))
def test_case(case: Dict[str, Any]) -> None:
    ids, weights, domains = membership(case)
    seed = seed_of(case)
    key = bytes.fromhex(case["key"])
    want = case["expected"]
    placement = hrwhash.Placement(ids, weights, seed=seed, domains=domains)
    if "nodes" in case:
        for node, spec in zip(case["nodes"], placement.weights):
            if "weight_fixed" in node:
                assert v1.weight_to_fixed(spec) == int(node["weight_fixed"])

    assert v1.key_digest(key, seed) == int(want["key_digest"])
    assert placement.owner(key) == ids[want["owner"]]
    rank = [ids[i] for i in want["rank"]]
    assert placement.rank(key, case["k"]) == rank
    assert list(placement.ranking(key))[: len(rank)] == rank
    # The same answers through every key type and through the batch calls.
    assert placement.owner(bytearray(key)) == placement.owner(memoryview(key)) == ids[want["owner"]]
    assert placement.owners([key, key]) == [ids[want["owner"]]] * 2
    assert placement.rank_many([key], case["k"]) == [rank]
    if "replicas" in want:
        assert placement.replicas(key, case["k"]) == [ids[i] for i in want["replicas"]]
    if "node_digests" in want:
        kd = int(want["key_digest"])
        for i, node in enumerate(ids):
            nd = v1.node_digest(node, seed)
            assert nd == int(want["node_digests"][i])
            assert v1.score(kd, nd) == placement.score(key, node) == int(want["scores"][i])


def test_draw_cases() -> None:
    for case in DATA["draw_cases"] + FILES["edge"]["draw_cases"]:
        assert v1.draw(int(case["score"])) == int(case["draw"]), case


@pytest.mark.parametrize("case", entries("weight_cases", lambda c: repr(c["weight"])))
def test_weight_case(case: Dict[str, Any]) -> None:
    w = number(case["weight"])
    if "error" in case:
        with pytest.raises(ERRORS[case["error"]]) as info:
            v1.weight_to_fixed(w)
        assert isinstance(info.value, hrwhash.errors.InvalidWeightError)
        got = info.value.value
        assert got is not None and (got == w or (math.isnan(got) and math.isnan(w)))
        with pytest.raises(ERRORS[case["error"]]):
            hrwhash.Placement(["a"], [w])
    else:
        assert v1.weight_to_fixed(w) == int(case["fixed"])


@pytest.mark.parametrize("case", entries("error_cases", lambda c: str(c["name"])))
def test_error_case(case: Dict[str, Any]) -> None:
    ids, weights, domains = membership(case)
    with pytest.raises(ERRORS[case["error"]]) as info:
        hrwhash.Placement(ids, weights, seed=seed_of(case), domains=domains)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, hrwhash.HrwError)
