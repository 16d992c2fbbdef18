"""Every case of conformance/policies/slot-table-v2.json through a levelled SlotTable, changes
applied in order as copies and in place (POLICIES.md, "slot-table (v2)")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

import hrwhash
from hrwhash import Placement, SlotTable

VECTORS = Path(__file__).resolve().parents[2] / "conformance" / "policies" / "slot-table-v2.json"
DATA: Dict[str, Any] = json.loads(VECTORS.read_text())


def placement_of(case: Dict[str, Any], nodes: List[Dict[str, Any]]) -> Placement[str]:
    seed = bytes.fromhex(case["seed"]) if "seed" in case else None
    return Placement([n["id"] for n in nodes], [n.get("weight", 1.0) for n in nodes], seed=seed)


def copy_of(table: SlotTable[str], change: Dict[str, Any]) -> SlotTable[str]:
    if change["op"] == "add":
        return table.with_node(change["id"], change.get("weight"))
    if change["op"] == "remove":
        return table.without_node(change["id"])
    return table.with_weight(change["id"], change["weight"])


def apply(table: SlotTable[str], change: Dict[str, Any]) -> None:
    if change["op"] == "add":
        table.add_node(change["id"], change.get("weight"))
    elif change["op"] == "remove":
        table.remove_node(change["id"])
    else:
        table.set_weight(change["id"], change["weight"])


def check(table: SlotTable[str], expected: List[int]) -> None:
    assert table.assignments() == expected
    counts = [0] * len(table.placement)
    for o in expected:
        counts[o] += 1
    assert table.slot_counts() == counts
    ids = list(table.placement)
    for s in range(0, table.slots, max(1, table.slots // 16)):
        assert table.owner_of_slot(s) == ids[expected[s]]


def test_file_is_the_one_this_suite_reads() -> None:
    assert DATA["policy"] == hrwhash.SLOT_TABLE_POLICY == "slot-table-v2"
    assert len(DATA["cases"]) >= 10 and len(DATA["error_cases"]) >= 8


@pytest.mark.parametrize("case", DATA["cases"], ids=lambda c: c["name"])
def test_case(case: Dict[str, Any]) -> None:
    placement = placement_of(case, case["nodes"])
    table = SlotTable(placement, case["slots"])
    assert table.mode == "levelled"
    assert table.slots == case["slots"]
    check(table, case["expected"]["table"])
    ids = list(placement)
    for k in case["expected"]["keys"]:
        assert table.slot(k["key"]) == table.slot(k["key"].encode()) == k["slot"]
        assert table.owner(k["key"]) == ids[k["owner"]]
    in_place = SlotTable(placement, case["slots"])
    for change in case.get("changes", []):
        before, snapshot = table, table.assignments()
        table = copy_of(table, change)
        check(table, change["expected"]["table"])
        # A copy leaves the table it was made from as it was.
        assert before.assignments() == snapshot
        apply(in_place, change)
        check(in_place, change["expected"]["table"])
        assert in_place.fingerprint == table.fingerprint


ERRORS = {
    "InvalidSlotCount": (hrwhash.errors.InvalidSlotCountError, ValueError),
    "SlotOutOfRange": (hrwhash.errors.SlotOutOfRangeError, IndexError),
    "UnknownNode": (hrwhash.errors.UnknownNodeError, ValueError),
    "DuplicateNodeId": (hrwhash.errors.DuplicateNodeIdError, ValueError),
    "EmptyMembership": (hrwhash.errors.EmptyMembershipError, ValueError),
    "AllWeightsZero": (hrwhash.errors.AllWeightsZeroError, ValueError),
}


@pytest.mark.parametrize("case", DATA["error_cases"], ids=lambda c: c["name"])
def test_error_case(case: Dict[str, Any]) -> None:
    placement = placement_of(case, case["nodes"])
    slots = int(case["slots"])
    kind, builtin = ERRORS[case["error"]]
    if case["error"] == "InvalidSlotCount":
        with pytest.raises(kind) as e:
            SlotTable(placement, slots)
        assert isinstance(e.value, builtin)
        return
    table = SlotTable(placement, slots)
    if "slot" in case:
        with pytest.raises(kind) as e:
            table.owner_of_slot(int(case["slot"]))
        assert isinstance(e.value, builtin)
        return
    changes = case["changes"]
    for change in changes[:-1]:
        table = copy_of(table, change)
    with pytest.raises(kind) as e:
        copy_of(table, changes[-1])
    assert isinstance(e.value, builtin)
    # In place: the failed change leaves the table as it was.
    snapshot = (table.assignments(), table.change_count)
    with pytest.raises(kind):
        apply(table, changes[-1])
    assert (table.assignments(), table.change_count) == snapshot


def test_bytes_ids_come_back_as_bytes() -> None:
    table = SlotTable(Placement([b"a", b"\xff"]), 8)
    assert {table.owner_of_slot(s) for s in range(8)} == {b"a", b"\xff"}


def test_changes_move_only_the_changed_node() -> None:
    table: SlotTable[bytes] = SlotTable(Placement([b"x", b"y", b"w"]), 30)
    assert table.slot_counts() == [10, 10, 10]
    grown = table.with_node(b"z", 1.0)
    assert list(grown.placement) == [b"x", b"y", b"w", b"z"]
    # round(30 / 4) = 8 slots (7.5 rounded half up), all to the new node.
    moved = [(a, b) for a, b in zip(table.assignments(), grown.assignments()) if a != b]
    assert len(moved) == 8 and all(b == 3 for _, b in moved)
    assert set(grown.owner(f"k{i}") for i in range(200)) <= {b"x", b"y", b"w", b"z"}
