"""Every case of conformance/policies/domains.json through the binding, and every bad input of the
domains-v1 policy (conformance/POLICIES.md, "domains (v1)")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Type, Union

import pytest

import hrwhash
from hrwhash import Domains, Placement

VECTORS = Path(__file__).resolve().parents[2] / "conformance" / "policies" / "domains.json"
DATA: Dict[str, Any] = json.loads(VECTORS.read_text())

ERRORS: Dict[str, Type[hrwhash.HrwError]] = {
    "EmptyMembership": hrwhash.errors.EmptyMembershipError,
    "DuplicateNodeId": hrwhash.errors.DuplicateNodeIdError,
    "AllWeightsZero": hrwhash.errors.AllWeightsZeroError,
    "InvalidDomains": hrwhash.errors.InvalidDomainsError,
    "InvalidReplicaCount": hrwhash.errors.InvalidReplicaCountError,
}


def text(obj: Dict[str, Any], name: str) -> Optional[Union[str, bytes]]:
    if name in obj:
        return str(obj[name])
    if name + "_hex" in obj:
        return bytes.fromhex(obj[name + "_hex"])
    return None


def placement(case: Dict[str, Any]) -> Placement[Any]:
    nodes = case["nodes"]
    seed = bytes.fromhex(case["seed"]) if "seed" in case else None
    return Placement(
        [text(n, "id") for n in nodes],
        [n.get("weight", 1) for n in nodes],
        seed=seed,
        domains=[text(n, "domain") for n in nodes],
    )


def cases(kind: str) -> pytest.MarkDecorator:
    return pytest.mark.parametrize("case", DATA[kind], ids=[c["name"] for c in DATA[kind]])


def test_the_file_is_the_one_this_suite_reads() -> None:
    assert DATA["policy"] == hrwhash.DOMAINS_POLICY == "domains-v1"
    assert set(DATA) == {"version", "policy", "algorithm", "_comment", "default_seed", "cases", "error_cases"}
    assert len(DATA["cases"]) >= 15 and len(DATA["error_cases"]) >= 20


@cases("cases")
def test_case(case: Dict[str, Any]) -> None:
    p = placement(case)
    d = Domains(p, case["level"])
    assert (d.level, d.domain_count) == (case["level"], case["domain_count"])
    ids = p.nodes
    for lookup in case["lookups"]:
        key = text(lookup, "key")
        assert key is not None
        want: List[Any] = [ids[i] for i in lookup["replicas"]]
        assert d.owner(key) == ids[lookup["owner"]]
        for k in range(1, case["k_max"] + 1):
            assert d.replicas(key, k) == want[:k]


@cases("error_cases")
def test_error_case(case: Dict[str, Any]) -> None:
    cls = ERRORS[case["error"]]
    with pytest.raises(cls) as info:
        d = Domains(placement(case), case["level"])
        if "k" in case:
            d.replicas(case["key"], case["k"])
    assert isinstance(info.value, ValueError)
    err: Any = info.value
    if case["error"] == "InvalidDomains":
        assert (err.index, err.reason) == (case["index"], case["reason"])
    if case["error"] == "InvalidReplicaCount":
        assert (err.requested, err.available) == (case["requested"], case["available"])


def fleet() -> Placement[str]:
    ids = [f"n{i}" for i in range(8)]
    return Placement(ids, domains=[f"z{i % 2}/r{i % 4}" for i in range(8)])


def test_replicas_spread_over_the_level_and_start_with_the_owner() -> None:
    d = Domains(fleet(), 1)
    assert (d.depth, d.domain_count, d.placement.nodes[0]) == (2, 4, "n0")
    for i in range(200):
        r = d.replicas(f"key-{i}", 4)
        assert r[0] == d.owner(f"key-{i}")
        assert len({d.domain_of(n) for n in r}) == 4
    assert d.domain_of("n5") == "z1/r1"
    assert "level=1" in repr(d)


def test_bytes_paths_come_back_as_bytes() -> None:
    p = Placement(["a", "b"], domains=[b"z\xff/r", "z/r"])
    assert Domains(p, 0).domain_of("a") == b"z\xff"


@pytest.mark.parametrize("bad", [-1, 1.5, float("nan"), float("inf"), 2**70])
def test_a_bad_level_or_k_is_an_invalid_count(bad: Any) -> None:
    with pytest.raises(hrwhash.errors.InvalidCountError):
        Domains(fleet(), bad)
    with pytest.raises(hrwhash.errors.InvalidCountError):
        Domains(fleet(), 0).replicas("key", bad)


def test_a_wrong_type_is_an_invalid_argument() -> None:
    bad: Any = "0"
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        Domains(fleet(), bad)
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        Domains(fleet(), True)
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        Domains(bad, 0)
    none: Any = None
    three: Any = 3
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        Domains(fleet(), 0).replicas(none, 1)
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        Domains(fleet(), 0).owner(three)
    with pytest.raises(hrwhash.errors.InvalidTextError):
        Domains(fleet(), 0).owner("\ud800")
    with pytest.raises(hrwhash.errors.UnknownNodeError):
        Domains(fleet(), 0).domain_of("nobody")


def test_each_bad_path_names_its_node_and_reason() -> None:
    cases: List[Tuple[List[Optional[str]], int, Optional[int], str]] = [
        (["a/b", None], 0, 1, "missing"),
        (["a/b", "a//b"], 0, 1, "empty_level"),
        (["a/b", "a"], 0, 1, "depth_mismatch"),
        (["a/b", "a/c"], 2, None, "level_out_of_range"),
    ]
    for domains, level, index, reason in cases:
        with pytest.raises(hrwhash.errors.InvalidDomainsError) as info:
            Domains(Placement(["x", "y"], domains=domains), level)
        assert (info.value.index, info.value.reason) == (index, reason)
    with pytest.raises(hrwhash.errors.InvalidDomainsError) as info:
        Domains(Placement(["x", "y"]), 0)
    assert (info.value.index, info.value.reason) == (0, "missing")
    with pytest.raises(hrwhash.errors.InvalidReplicaCountError) as err:
        Domains(fleet(), 0).replicas("key", 0)
    assert (err.value.requested, err.value.available) == (0, 8)
