"""Every case of conformance/policies/slot-history-v1.json through SlotTable.from_json, and the bad
inputs of loading and of appending changes with the errors they raise
(conformance/SLOT-HISTORY.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Type

import pytest

import hrwhash
from hrwhash import Placement, SlotTable

VECTORS = Path(__file__).resolve().parents[2] / "conformance" / "policies" / "slot-history-v1.json"
DATA: Dict[str, Any] = json.loads(VECTORS.read_text())

ERRORS: Dict[str, Type[hrwhash.HrwError]] = {
    "InvalidJson": hrwhash.errors.InvalidJsonError,
    "InvalidView": hrwhash.errors.InvalidViewError,
    "InvalidSlotCount": hrwhash.errors.InvalidSlotCountError,
    "SeedMismatch": hrwhash.errors.SeedMismatchError,
    "EmptyMembership": hrwhash.errors.EmptyMembershipError,
    "EmptyNodeId": hrwhash.errors.EmptyNodeIdError,
    "DuplicateNodeId": hrwhash.errors.DuplicateNodeIdError,
    "AllWeightsZero": hrwhash.errors.AllWeightsZeroError,
    "UnknownNode": hrwhash.errors.UnknownNodeError,
    "ResultTooLarge": hrwhash.errors.ResultTooLargeError,
}


MODES = {hrwhash.SLOT_TABLE_POLICY: "levelled", hrwhash.RANKED_SLOT_TABLE_POLICY: "ranked"}


def document(case: Dict[str, Any]) -> bytes:
    if "document" in case:
        return str(case["document"]).encode("utf-8")
    return bytes.fromhex(case["document_hex"])


def seed(case: Dict[str, Any]) -> Optional[bytes]:
    return bytes.fromhex(case["seed"]) if "seed" in case else None


def owner(o: Dict[str, Any]) -> Any:
    return o["owner"] if "owner" in o else bytes.fromhex(o["owner_hex"])


@pytest.mark.parametrize("case", DATA["valid"], ids=lambda c: c["name"])
def test_valid(case: Dict[str, Any]) -> None:
    t = SlotTable.from_json(document(case), seed(case))
    assert t.to_json() == case["canonical"]
    assert t.fingerprint == case["table_fingerprint"]
    assert t.change_count == case["changes"]
    assert t.mode == MODES[json.loads(case["canonical"])["policy"]]
    view = t.view()
    assert view.fingerprint == case["view_fingerprint"]
    assert view.to_json() == case["view"]
    assert view.epoch == t.epoch
    for o in case["owners"]:
        assert t.owner_of_slot(o["slot"]) == owner(o)
        if "key" in o:
            assert t.slot(o["key"]) == o["slot"]
            assert t.owner(o["key"]) == owner(o)
    # The str form of the document loads the same table, and so does its canonical form.
    if "document" in case:
        assert SlotTable.from_json(case["document"], seed=seed(case)).to_json() == t.to_json()
    again = SlotTable.from_json(t.to_json(), seed(case))
    assert again.fingerprint == t.fingerprint and again.assignments() == t.assignments()


@pytest.mark.parametrize("case", DATA["same_membership"], ids=lambda c: c["name"])
def test_same_membership_other_order(case: Dict[str, Any]) -> None:
    a, b = SlotTable.from_json(case["a"]), SlotTable.from_json(case["b"])
    assert a.view().fingerprint == b.view().fingerprint == case["view_fingerprint"]
    assert a.fingerprint == case["a_table_fingerprint"]
    assert b.fingerprint == case["b_table_fingerprint"]
    if a.mode == "levelled":
        assert a.assignments() != b.assignments()
    else:
        # A ranked table depends only on the membership.
        assert a.fingerprint == b.fingerprint


@pytest.mark.parametrize("case", DATA["order_independent"], ids=lambda c: c["name"])
def test_ranked_order_independent(case: Dict[str, Any]) -> None:
    a, b = SlotTable.from_json(case["a"]), SlotTable.from_json(case["b"])
    assert a.mode == b.mode == "ranked"
    assert a.view().fingerprint == b.view().fingerprint == case["view_fingerprint"]
    assert a.fingerprint == b.fingerprint == case["table_fingerprint"]
    assert a.assignments() == b.assignments() and a.to_json() != b.to_json()
    # The table of a ranked history is the ranked table of its final membership.
    fresh = SlotTable(a.placement, a.slots, mode="ranked", overload_ppm=a.overload_ppm)
    assert fresh.assignments() == a.assignments()


@pytest.mark.parametrize("case", DATA["equivalent"], ids=lambda c: c["name"])
def test_equivalent(case: Dict[str, Any]) -> None:
    t = SlotTable.from_json(case["document"])
    assert t.to_json() == case["canonical"]
    assert t.fingerprint == case["table_fingerprint"]


@pytest.mark.parametrize("case", DATA["invalid"], ids=lambda c: c["name"])
def test_invalid(case: Dict[str, Any]) -> None:
    with pytest.raises(ERRORS[case["error"]]) as info:
        SlotTable.from_json(document(case), seed=seed(case))
    assert info.type is ERRORS[case["error"]]
    e: Any = info.value
    if case["error"] == "InvalidView":
        assert (e.field, e.index, e.reason) == (case["field"], case["index"], case["reason"])
    if case["error"] in ("EmptyNodeId", "DuplicateNodeId"):
        assert e.index == case["index"]
    if case["error"] == "DuplicateNodeId":
        assert e.first_index == case["first_index"]
    if case["error"] == "InvalidSlotCount":
        assert e.value == int(case["value"])
    if case["error"] == "InvalidJson":
        assert e.line >= 1 and e.column >= 1


def test_file_is_the_one_this_suite_reads() -> None:
    assert DATA["format"] == hrwhash.SLOT_HISTORY_FORMAT == "hrwhash-slot-history-v1"
    assert len(DATA["valid"]) >= 10 and len(DATA["invalid"]) >= 90
    # Both modes are covered by the vectors.
    policies = {json.loads(c["canonical"])["policy"] for c in DATA["valid"]}
    assert policies == {"slot-table-v1", "slot-table-v2"}
    assert len(DATA["order_independent"]) >= 3


@pytest.mark.parametrize("mode", ["levelled", "ranked"])
def test_changes_replay_in_order(mode: Any) -> None:
    first = SlotTable(Placement(["a", "b", "c"]), 64, mode=mode, epoch=5)
    t = first.with_node("d", 2.0, domain="zone-9").without_node("a").with_weight("c", 0.5)
    loaded = SlotTable.from_json(t.to_json())
    assert loaded.fingerprint == t.fingerprint and loaded.mode == mode
    assert (t.epoch, t.slots, t.change_count, first.change_count) == (5, 64, 3, 0)
    assert list(loaded.initial) == ["a", "b", "c"] and list(loaded.placement) == ["b", "c", "d"]
    other = first.without_node("a").with_node("d", 2.0, domain="zone-9").with_weight("c", 0.5)
    assert other.view().fingerprint == t.view().fingerprint
    if mode == "ranked":
        # A ranked table depends only on the membership, not on the order of changes.
        assert other.fingerprint == t.fingerprint


def test_a_ranked_document_keeps_its_bound() -> None:
    t = SlotTable(Placement(["a", "b"]), 16, mode="ranked", overload_ppm=25_000)
    t.add_node("c")
    loaded = SlotTable.from_json(t.to_json().encode())
    assert (loaded.mode, loaded.overload_ppm) == ("ranked", 25_000)
    assert loaded.capacities() == t.capacities() and loaded.assignments() == t.assignments()
    unbounded = SlotTable.from_json(SlotTable(Placement(["a"]), 4, mode="ranked").to_json())
    assert (unbounded.mode, unbounded.overload_ppm, unbounded.capacities()) == ("ranked", None, None)
    # The bound is part of the table's identity.
    assert SlotTable(Placement(["a", "b"]), 16, mode="ranked").fingerprint != SlotTable(
        Placement(["a", "b"]), 16, mode="ranked", overload_ppm=4_294_967_295
    ).fingerprint


@pytest.mark.parametrize("bad", [float("nan"), -1.0])
def test_with_weight_looks_the_node_up_before_the_weight(bad: float) -> None:
    # conformance/API.md: the same bad input gets the same error in every API. An unknown node
    # with an invalid weight is UnknownNode for Placement and SlotTable alike; a known node's
    # invalid weight stays InvalidWeight.
    p = Placement(["a", "b", "c"])
    t = SlotTable(p, 8)
    calls: List[Callable[[Any, Any], object]] = [
        p.with_weight,
        t.with_weight,
        t.set_weight,
        SlotTable(p, 8, mode="ranked").with_weight,
    ]
    for with_weight in calls:
        with pytest.raises(hrwhash.errors.UnknownNodeError):
            with_weight("zz", bad)
        with pytest.raises(hrwhash.errors.InvalidWeightError):
            with_weight("b", bad)
        with pytest.raises(hrwhash.errors.InvalidArgumentError):
            with_weight("zz", "2")
    # The membership is the table's current one: a node it removed is unknown, one it added is
    # known.
    later = t.without_node("a").with_node("d")
    with pytest.raises(hrwhash.errors.UnknownNodeError):
        later.with_weight("a", bad)
    with pytest.raises(hrwhash.errors.InvalidWeightError):
        later.with_weight("d", bad)
    assert t.change_count == 0


@pytest.mark.parametrize(
    "call",
    [
        lambda: SlotTable.from_json(42),  # type: ignore[arg-type]
        lambda: SlotTable.from_json(None),  # type: ignore[arg-type]
        lambda: SlotTable.from_json("{}", seed=3),  # type: ignore[arg-type]
        lambda: SlotTable.from_json("{}", "0123456789abcdef"),  # type: ignore[arg-type]
    ],
)
def test_misuse_is_invalid_argument(call: Any) -> None:
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        call()


def test_bad_counts_and_epochs() -> None:
    with pytest.raises(hrwhash.errors.InvalidSlotCountError):
        SlotTable(Placement(["a"]), 0)
    with pytest.raises(hrwhash.errors.InvalidCountError):
        SlotTable(Placement(["a"]), -1)
    # An epoch argument is checked as a count is (API.md section 3), as in Node.
    with pytest.raises(hrwhash.errors.InvalidCountError):
        SlotTable(Placement(["a"]), 8, epoch=2**64)
    with pytest.raises(hrwhash.errors.InvalidCountError):
        SlotTable(Placement(["a"]), 8).with_epoch(-1)


def test_bad_seed_and_text() -> None:
    with pytest.raises(hrwhash.errors.InvalidSeedLengthError):
        SlotTable.from_json("{}", seed=b"short")
    with pytest.raises(hrwhash.errors.InvalidTextError):
        SlotTable.from_json("\ud800")
    with pytest.raises(hrwhash.errors.InvalidJsonError):
        SlotTable.from_json(b"\xff")
