"""Every case of conformance/policies/slot-history-v1.json through the binding, appending changes,
and the bad inputs of SlotHistory with the errors they raise (conformance/SLOT-HISTORY.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Type

import pytest

import hrwhash
from hrwhash import LevelledSlotTable, Placement, SlotHistory

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
}


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
    h = SlotHistory.from_json(document(case), seed=seed(case))
    assert h.to_json() == case["canonical"]
    assert h.table_fingerprint == case["table_fingerprint"]
    assert h.change_count == len(h) == case["changes"]
    view = h.view()
    assert view.fingerprint == case["view_fingerprint"]
    assert view.to_json() == case["view"]
    assert view.epoch == h.epoch
    table = h.table()
    for o in case["owners"]:
        assert table.owner_of_slot(o["slot"]) == owner(o)
        if "key" in o:
            assert h.slot(o["key"]) == table.slot(o["key"]) == o["slot"]
            assert h.owner(o["key"]) == table.owner(o["key"]) == owner(o)
    # The str form of the document loads the same history.
    if "document" in case:
        assert SlotHistory.from_json(case["document"], seed=seed(case)).to_json() == h.to_json()


@pytest.mark.parametrize("case", DATA["same_membership"], ids=lambda c: c["name"])
def test_same_membership_other_order(case: Dict[str, Any]) -> None:
    a, b = SlotHistory.from_json(case["a"]), SlotHistory.from_json(case["b"])
    assert a.view().fingerprint == b.view().fingerprint == case["view_fingerprint"]
    assert a.table_fingerprint == case["a_table_fingerprint"]
    assert b.table_fingerprint == case["b_table_fingerprint"]
    assert a.table().assignments() != b.table().assignments()


@pytest.mark.parametrize("case", DATA["equivalent"], ids=lambda c: c["name"])
def test_equivalent(case: Dict[str, Any]) -> None:
    h = SlotHistory.from_json(case["document"])
    assert h.to_json() == case["canonical"]
    assert h.table_fingerprint == case["table_fingerprint"]


@pytest.mark.parametrize("case", DATA["invalid"], ids=lambda c: c["name"])
def test_invalid(case: Dict[str, Any]) -> None:
    with pytest.raises(ERRORS[case["error"]]) as info:
        SlotHistory.from_json(document(case), seed=seed(case))
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


def test_appending_changes_replays_them_in_order() -> None:
    first = SlotHistory(Placement(["a", "b", "c"]), 64, 5)
    h = first.with_node("d", 2.0, domain="zone-9").without_node("a").with_weight("c", 0.5)
    loaded = SlotHistory.from_json(h.to_json())
    assert loaded.table_fingerprint == h.table_fingerprint
    assert (h.epoch, h.slots, len(h), len(first)) == (5, 64, 3, 0)
    assert h.with_epoch(6).epoch == 6 and h.with_epoch(6).table_fingerprint == h.table_fingerprint
    other = first.without_node("a").with_node("d", 2.0, domain="zone-9").with_weight("c", 0.5)
    assert other.view().fingerprint == h.view().fingerprint
    assert isinstance(repr(h), str) and h.table_fingerprint in repr(h)


def test_bad_appends_raise_and_leave_the_history() -> None:
    h = SlotHistory(Placement(["a", "b"]), 8)
    with pytest.raises(hrwhash.errors.UnknownNodeError):
        h.without_node("zz")
    with pytest.raises(hrwhash.errors.UnknownNodeError):
        h.with_weight("zz", 1.0)
    with pytest.raises(hrwhash.errors.DuplicateNodeIdError) as dup:
        h.with_node("b")
    assert (dup.value.index, dup.value.first_index) == (0, 1)
    with pytest.raises(hrwhash.errors.EmptyNodeIdError):
        h.with_node("")
    with pytest.raises(hrwhash.errors.InvalidWeightError):
        h.with_weight("a", -1.0)
    with pytest.raises(hrwhash.errors.AllWeightsZeroError):
        h.with_weight("a", 0).with_weight("b", 0)
    with pytest.raises(hrwhash.errors.EmptyMembershipError):
        h.without_node("a").without_node("b")
    assert len(h) == 0


@pytest.mark.parametrize("bad", [float("nan"), -1.0])
def test_with_weight_looks_the_node_up_before_the_weight(bad: float) -> None:
    # conformance/API.md: the same bad input gets the same error in every API. An unknown node
    # with an invalid weight is UnknownNode for Placement, LevelledSlotTable and SlotHistory alike;
    # a known node's invalid weight stays InvalidWeight.
    p = Placement(["a", "b", "c"])
    h = SlotHistory(p, 8)
    calls: List[Callable[[Any, Any], object]] = [
        p.with_weight,
        LevelledSlotTable(p, 8).with_weight,
        h.with_weight,
    ]
    for with_weight in calls:
        with pytest.raises(hrwhash.errors.UnknownNodeError):
            with_weight("zz", bad)
        with pytest.raises(hrwhash.errors.InvalidWeightError):
            with_weight("b", bad)
        with pytest.raises(hrwhash.errors.InvalidArgumentError):
            with_weight("zz", "2")
    # The membership is the history's current one: a node it removed is unknown, one it added
    # is known.
    later = h.without_node("a").with_node("d")
    with pytest.raises(hrwhash.errors.UnknownNodeError):
        later.with_weight("a", bad)
    with pytest.raises(hrwhash.errors.InvalidWeightError):
        later.with_weight("d", bad)


@pytest.mark.parametrize(
    "call",
    [
        lambda: SlotHistory.from_json(42),  # type: ignore[arg-type]
        lambda: SlotHistory.from_json("{}", seed=3),  # type: ignore[arg-type]
        lambda: SlotHistory("a", 8),  # type: ignore[arg-type]
        lambda: SlotHistory(Placement(["a"]), 8, "1"),  # type: ignore[arg-type]
        lambda: SlotHistory(Placement(["a"]), 8).with_node(3),  # type: ignore[arg-type]
        lambda: SlotHistory(Placement(["a"]), 8).with_node("b", ttl=3),  # type: ignore[call-arg]
        lambda: SlotHistory(Placement(["a"]), 8).with_weight("a", "2"),  # type: ignore[arg-type]
        lambda: SlotHistory(Placement(["a"]), 8).owner(None),  # type: ignore[arg-type]
    ],
)
def test_misuse_is_invalid_argument(call: Any) -> None:
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        call()


def test_bad_counts_and_epochs() -> None:
    with pytest.raises(hrwhash.errors.InvalidSlotCountError):
        SlotHistory(Placement(["a"]), 0)
    with pytest.raises(hrwhash.errors.InvalidCountError):
        SlotHistory(Placement(["a"]), -1)
    # An epoch argument is checked as a count is (API.md section 3), as in Node.
    with pytest.raises(hrwhash.errors.InvalidCountError):
        SlotHistory(Placement(["a"]), 8, 2**64)
    with pytest.raises(hrwhash.errors.InvalidSeedLengthError):
        SlotHistory.from_json("{}", seed=b"short")
