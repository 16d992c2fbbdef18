"""Every case of conformance/policies/replica-balance-v2.json through the binding, and every bad
input of the policy (conformance/POLICIES.md, replica-balance)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, Type

import pytest

import hrwhash
from hrwhash import Placement, ReplicaBalance

VECTORS: Dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[2] / "conformance" / "policies" / "replica-balance-v2.json")
    .read_text())


def membership(case: Dict[str, Any]) -> "Placement[bytes]":
    ids = [bytes.fromhex(n["id"]) for n in case["nodes"]]
    return Placement(ids, weights=[float(n["weight"]) for n in case["nodes"]])


def test_policy_name() -> None:
    assert VECTORS["policy"] == hrwhash.REPLICA_BALANCE_POLICY == "replica-balance-v2"


@pytest.mark.parametrize("case", VECTORS["cases"], ids=lambda c: c["name"])
def test_replica_sets(case: Dict[str, Any]) -> None:
    p = membership(case)
    r = ReplicaBalance(p, case["k"])
    assert r.adjusted_fixed == [int(x) for x in case["expected"]["adjusted_fixed"]]
    assert r.iterations == case["expected"]["iterations"]
    assert r.k == case["k"]
    for item in case["expected"]["replicas"]:
        assert r.replica_indices(item["key"]) == item["replicas"]
        assert r.replicas(item["key"]) == [p.nodes[i] for i in item["replicas"]]


@pytest.mark.parametrize("case", VECTORS["error_cases"], ids=lambda c: c["name"])
def test_replica_errors(case: Dict[str, Any]) -> None:
    classes: Dict[str, Type[hrwhash.errors.HrwError]] = {
        "InvalidCount": hrwhash.errors.InvalidCountError,
        "InfeasibleReplicaWeights": hrwhash.errors.InfeasibleReplicaWeightsError,
    }
    with pytest.raises(classes[case["error"]]) as e:
        ReplicaBalance(membership(case), case["k"])
    assert isinstance(e.value, ValueError)
    if "index" in case:
        assert isinstance(e.value, hrwhash.errors.InfeasibleReplicaWeightsError)
        assert (e.value.index, e.value.k) == (case["index"], case["k"])


def test_residual_is_within_tolerance_unless_at_the_limit() -> None:
    p = Placement(["a", "b", "c", "d"], weights=[3, 3, 3, 1])
    assert ReplicaBalance(p, 3).residual <= 2.0**-20
    limit = ReplicaBalance(Placement(["a", "b", "c"], weights=[2, 1, 1]), 2)
    assert limit.iterations == 64 and limit.residual > 2.0**-20


def test_replica_misuse() -> None:
    p = Placement(["a", "b", "c"], weights=[1, 1, 1])
    for bad_k in [-1, 1.5, "2", None, 2**64]:
        with pytest.raises((hrwhash.errors.InvalidCountError, hrwhash.errors.InvalidArgumentError)):
            ReplicaBalance(p, bad_k)  # type: ignore[arg-type]
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        ReplicaBalance([1, 2], 2)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ReplicaBalance(p, 2, 18)  # type: ignore[call-arg]
    r = ReplicaBalance(p, 2)
    for bad_key in [None, 3, 1.5]:
        with pytest.raises(hrwhash.errors.InvalidArgumentError):
            r.replicas(bad_key)  # type: ignore[arg-type]
    with pytest.raises(hrwhash.errors.InvalidTextError):
        r.replicas("\ud800")
    assert r.k == 2 and len(r.adjusted_weights) == 3
    assert repr(r) == "ReplicaBalance(k=2, nodes=3)"
