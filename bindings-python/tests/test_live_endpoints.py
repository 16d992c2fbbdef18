"""hrwhash.live.view_from_endpoint_slices on EndpointSlice documents in the form the Kubernetes
documentation shows (discovery.k8s.io/v1)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

import hrwhash
from hrwhash import Placement, View
from hrwhash.errors import (
    AllWeightsZeroError,
    EmptyMembershipError,
    EmptyNodeIdError,
    InvalidArgumentError,
    InvalidJsonError,
    InvalidViewError,
    InvalidWeightError,
)
from hrwhash.live import view_from_endpoint_slices


CASES_PATH = Path(__file__).resolve().parents[2] / "conformance" / "endpointslices.json"
CASES: Dict[str, Any] = json.loads(CASES_PATH.read_text())
CASE_KEYS = {"name", "service", "port_name", "weight", "epoch", "input", "input_text", "expected", "error"}


@pytest.mark.parametrize("case", CASES["cases"], ids=[c["name"] for c in CASES["cases"]])
def test_conformance_case(case: Dict[str, Any]) -> None:
    assert CASES["version"] == "hrwhash-endpointslices-v1"
    assert set(case) <= CASE_KEYS, set(case) - CASE_KEYS  # a field this runner does not read
    slices = case["input_text"] if "input_text" in case else case["input"]
    options: Dict[str, Any] = {"epoch": int(case["epoch"])}
    if "port_name" in case:
        options["port"] = case["port_name"]
    if "weight" in case:
        options["weight"] = case["weight"]
    if "error" in case:
        with pytest.raises(getattr(hrwhash.errors, case["error"] + "Error")):
            view_from_endpoint_slices(slices, case["service"], **options)
        # The same input as JSON text fails alike.
        if "input" in case:
            with pytest.raises(getattr(hrwhash.errors, case["error"] + "Error")):
                view_from_endpoint_slices(json.dumps(case["input"]), case["service"], **options)
    else:
        got = view_from_endpoint_slices(slices, case["service"], **options)
        assert got.to_json() == case["expected"]
        assert view_from_endpoint_slices(json.dumps(slices), case["service"], **options).to_json() == case["expected"]


def endpoint(address: str, zone: Optional[str] = None, **conditions: bool) -> Dict[str, Any]:
    e: Dict[str, Any] = {"addresses": [address], "nodeName": "node-1"}
    if conditions:
        e["conditions"] = conditions
    if zone is not None:
        e["zone"] = zone
    return e


def endpoint_slice(name: str, service: str, endpoints: List[Dict[str, Any]], port: int = 11211) -> Dict[str, Any]:
    return {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {"name": name, "labels": {"kubernetes.io/service-name": service}},
        "addressType": "IPv4",
        "ports": [{"name": "memcache", "protocol": "TCP", "port": port}],
        "endpoints": endpoints,
    }


SLICES = [
    endpoint_slice(
        "cache-abc",
        "cache",
        [
            endpoint("10.1.2.3", "us-west2-a", ready=True, serving=True, terminating=False),
            endpoint("10.1.2.4", "us-west2-b"),  # no conditions: ready
            endpoint("10.1.2.5", "us-west2-a", ready=False, serving=True, terminating=True),  # draining
            endpoint("10.1.2.6", "us-west2-b", ready=False, serving=False, terminating=True),  # gone
            endpoint("10.1.2.7", "us-west2-c", ready=False, serving=False, terminating=False),  # not yet
        ],
    ),
    endpoint_slice("cache-def", "cache", [endpoint("10.1.2.8", "us-west2-c", ready=True)]),
    endpoint_slice("web-xyz", "web", [endpoint("10.9.9.9", "us-west2-a", ready=True)]),
]


def test_ready_members_draining_at_zero_zones_as_domains() -> None:
    got = view_from_endpoint_slices(SLICES, "cache", epoch=7)
    want = View(
        Placement(
            ["10.1.2.3", "10.1.2.4", "10.1.2.5", "10.1.2.8"],
            [1.0, 1.0, 0.0, 1.0],
            domains=["us-west2-a", "us-west2-b", "us-west2-a", "us-west2-c"],
        ),
        7,
    )
    assert got == want and got.epoch == 7
    # A list object, JSON text and JSON bytes are the same input.
    assert view_from_endpoint_slices({"kind": "EndpointSliceList", "items": SLICES}, "cache", epoch=7) == want
    assert view_from_endpoint_slices(json.dumps(SLICES), "cache", epoch=7) == want
    assert view_from_endpoint_slices(json.dumps({"items": SLICES}).encode(), "cache", epoch=7) == want
    web = view_from_endpoint_slices(SLICES, "web", epoch=1)
    assert web.placement.nodes == ("10.9.9.9",)


def test_ports_weights_and_seeds() -> None:
    got = view_from_endpoint_slices(SLICES, "cache", epoch=2, port="memcache", weight=2.5, seed=bytes(16))
    assert got.placement.nodes == ("10.1.2.3:11211", "10.1.2.4:11211", "10.1.2.5:11211", "10.1.2.8:11211")
    assert got.placement.weights == (2.5, 2.5, 0.0, 2.5)
    assert got.placement.seed == bytes(16)
    # A slice without the named port contributes nothing.
    with pytest.raises(EmptyMembershipError):
        view_from_endpoint_slices(SLICES, "cache", epoch=2, port="http")


def test_an_address_in_two_slices_is_one_member_and_ready_wins() -> None:
    slices = [
        endpoint_slice("a", "cache", [endpoint("10.0.0.1", "z1", ready=False, serving=True, terminating=True)]),
        endpoint_slice("b", "cache", [endpoint("10.0.0.1", "z1", ready=True), endpoint("10.0.0.2", "z2")]),
        endpoint_slice("c", "cache", [endpoint("10.0.0.2", "z2", ready=False, serving=True, terminating=True)]),
    ]
    got = view_from_endpoint_slices(slices, "cache", epoch=1)
    assert got.placement.nodes == ("10.0.0.1", "10.0.0.2")
    assert got.placement.weights == (1.0, 1.0)


def test_memberships_a_view_cannot_hold() -> None:
    with pytest.raises(EmptyMembershipError):
        view_from_endpoint_slices(SLICES, "absent", epoch=1)
    with pytest.raises(EmptyMembershipError):
        view_from_endpoint_slices([], "cache", epoch=1)
    draining = [endpoint_slice("a", "cache", [endpoint("10.0.0.1", ready=False, serving=True, terminating=True)])]
    with pytest.raises(AllWeightsZeroError):
        view_from_endpoint_slices(draining, "cache", epoch=1)
    with pytest.raises(InvalidWeightError):
        view_from_endpoint_slices(SLICES, "cache", epoch=1, weight=-1.0)


def broken(path: List[Any], value: Any) -> List[Dict[str, Any]]:
    slices = copy.deepcopy(SLICES)
    target: Any = slices
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return slices


@pytest.mark.parametrize(
    "slices",
    [
        {"kind": "EndpointSliceList"},  # no items
        {"items": {}},
        "3",
        [3],
        broken([0, "metadata"], []),
        broken([0, "metadata", "labels"], "cache"),
        broken([0, "endpoints"], {}),
        broken([0, "endpoints", 0], "10.1.2.3"),
        broken([0, "endpoints", 0, "addresses"], "10.1.2.3"),
        broken([0, "endpoints", 0, "addresses", 0], 10),
        broken([0, "endpoints", 0, "addresses"], ["10.1.2.3", 10]),  # every address is a string
        broken([0, "metadata", "labels", "kubernetes.io/service-name"], 3),
        broken([0, "addressType"], 6),
        broken([0, "endpoints", 0, "conditions"], True),
        broken([0, "endpoints", 0, "conditions", "ready"], "true"),
        broken([0, "endpoints", 0, "zone"], 1),
    ],
)
def test_malformed_slices_are_invalid_view_errors(slices: Any) -> None:
    with pytest.raises(InvalidViewError):
        view_from_endpoint_slices(slices, "cache", epoch=1)


@pytest.mark.parametrize(
    "ports", [[{"name": "memcache", "port": 70000}], [{"name": "memcache", "port": "80"}], ["memcache"], {}]
)
def test_malformed_ports_are_invalid_view_errors_when_a_port_is_named(ports: Any) -> None:
    slices = broken([0, "ports"], ports)
    with pytest.raises(InvalidViewError):
        view_from_endpoint_slices(slices, "cache", epoch=1, port="memcache")
    view_from_endpoint_slices(slices, "cache", epoch=1)  # without a port name, ports are not read


def test_an_empty_address_is_an_empty_node_id() -> None:
    with pytest.raises(EmptyNodeIdError):
        view_from_endpoint_slices(broken([0, "endpoints", 0, "addresses", 0], ""), "cache", epoch=1)


def test_ipv6_ports_are_bracketed() -> None:
    slices = [endpoint_slice("v6", "cache", [endpoint("fd00::1", ready=True)])]
    slices[0]["addressType"] = "IPv6"
    assert view_from_endpoint_slices(slices, "cache", epoch=1, port="memcache").placement.nodes == (
        "[fd00::1]:11211",
    )
    assert view_from_endpoint_slices(slices, "cache", epoch=1).placement.nodes == ("fd00::1",)


def test_bad_text_and_arguments() -> None:
    with pytest.raises(InvalidJsonError) as info:
        view_from_endpoint_slices('[{"kind": ', "cache", epoch=1)
    assert info.value.line == 1 and info.value.column is not None
    with pytest.raises(InvalidArgumentError):
        view_from_endpoint_slices(SLICES, b"cache", epoch=1)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        view_from_endpoint_slices(SLICES, "cache", epoch="1")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        view_from_endpoint_slices(3, "cache", epoch=1)
    with pytest.raises(InvalidArgumentError):
        view_from_endpoint_slices(SLICES, "cache", epoch=1, port=80)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        view_from_endpoint_slices(SLICES, "cache", epoch=1, weight="1")  # type: ignore[arg-type]
