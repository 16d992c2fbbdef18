"""Every case of conformance/policies/slot-table-v2.json through the binding, changes applied in
order, and every bad input of LevelledSlotTable with the error it raises (POLICIES.md,
"slot-table (v2)")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

import hrwhash
from hrwhash import LevelledSlotTable, Placement, View

VECTORS = Path(__file__).resolve().parents[2] / "conformance" / "policies" / "slot-table-v2.json"
DATA: Dict[str, Any] = json.loads(VECTORS.read_text())


def placement_of(case: Dict[str, Any], nodes: List[Dict[str, Any]]) -> Placement[str]:
    seed = bytes.fromhex(case["seed"]) if "seed" in case else None
    return Placement([n["id"] for n in nodes], [n.get("weight", 1.0) for n in nodes], seed=seed)


def apply(table: LevelledSlotTable[str], change: Dict[str, Any]) -> LevelledSlotTable[str]:
    if change["op"] == "add":
        return table.with_node(change["id"], change.get("weight"))
    if change["op"] == "remove":
        return table.without_node(change["id"])
    return table.with_weight(change["id"], change["weight"])


def check(table: LevelledSlotTable[str], expected: List[int]) -> None:
    assert table.assignments() == expected
    counts = [0] * len(table.placement)
    for o in expected:
        counts[o] += 1
    assert table.slot_counts() == counts
    ids = list(table.placement)
    for s in range(0, table.slots, max(1, table.slots // 16)):
        assert table.owner_of_slot(s) == ids[expected[s]]


def test_file_is_the_one_this_suite_reads() -> None:
    assert DATA["policy"] == hrwhash.LEVELLED_SLOTS_POLICY == "slot-table-v2"
    assert len(DATA["cases"]) >= 10 and len(DATA["error_cases"]) >= 8


@pytest.mark.parametrize("case", DATA["cases"], ids=lambda c: c["name"])
def test_case(case: Dict[str, Any]) -> None:
    placement = placement_of(case, case["nodes"])
    table = LevelledSlotTable(placement, case["slots"])
    assert table.slots == len(table) == case["slots"]
    check(table, case["expected"]["table"])
    ids = list(placement)
    for k in case["expected"]["keys"]:
        assert table.slot(k["key"]) == table.slot(k["key"].encode()) == k["slot"]
        assert table.owner(k["key"]) == ids[k["owner"]]
    for change in case.get("changes", []):
        before, snapshot = table, table.assignments()
        table = apply(table, change)
        check(table, change["expected"]["table"])
        # A change returns a new table and leaves the one it was applied to as it was.
        assert before.assignments() == snapshot


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
            LevelledSlotTable(placement, slots)
        assert isinstance(e.value, builtin)
        return
    table = LevelledSlotTable(placement, slots)
    if "slot" in case:
        with pytest.raises(kind) as e:
            table.owner_of_slot(int(case["slot"]))
        assert isinstance(e.value, builtin)
        return
    changes = case["changes"]
    for change in changes[:-1]:
        table = apply(table, change)
    with pytest.raises(kind) as e:
        apply(table, changes[-1])
    assert isinstance(e.value, builtin)


def test_built_from_a_view() -> None:
    view = View(Placement(["a", "b", "c"]), 7)
    assert (
        LevelledSlotTable(view, 64).assignments()
        == LevelledSlotTable(view.placement, 64).assignments()
    )


def test_bytes_ids_come_back_as_bytes() -> None:
    table = LevelledSlotTable(Placement([b"a", b"\xff"]), 8)
    assert {table.owner_of_slot(s) for s in range(8)} == {b"a", b"\xff"}


# Deliberate misuse: typed as Any so that the checker lets the wrong types through.
LT: Any = LevelledSlotTable


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda p: LT(p, -1), hrwhash.errors.InvalidCountError),
        (lambda p: LT(p, 1.5), hrwhash.errors.InvalidCountError),
        (lambda p: LT(p, 0), hrwhash.errors.InvalidSlotCountError),
        (lambda p: LT(p, 2**24 + 1), hrwhash.errors.InvalidSlotCountError),
        (lambda p: LT(p, "8"), hrwhash.errors.InvalidArgumentError),
        (lambda p: LT(p, True), hrwhash.errors.InvalidArgumentError),
        (lambda p: LT(["a"], 8), hrwhash.errors.InvalidArgumentError),
        (lambda p: LT(p, 8, overload_ppm=0), hrwhash.errors.InvalidArgumentError),
        (lambda p: LT(p, 8).owner_of_slot(-1), hrwhash.errors.InvalidCountError),
        (lambda p: LT(p, 8).owner_of_slot(None), hrwhash.errors.InvalidArgumentError),
        (lambda p: LT(p, 8).owner_of_slot(2**70), hrwhash.errors.SlotOutOfRangeError),
        (lambda p: LT(p, 8).slot(None), hrwhash.errors.InvalidArgumentError),
        (lambda p: LT(p, 8).owner("\ud800"), hrwhash.errors.InvalidTextError),
        (lambda p: LT(p, 8).without_node("zz"), hrwhash.errors.UnknownNodeError),
        (lambda p: LT(p, 8).with_weight("zz", 1.0), hrwhash.errors.UnknownNodeError),
        (lambda p: LT(p, 8).with_weight("a", -1.0), hrwhash.errors.InvalidWeightError),
        (lambda p: LT(p, 8).with_node("a"), hrwhash.errors.DuplicateNodeIdError),
        (lambda p: LT(p, 8).with_node(""), hrwhash.errors.EmptyNodeIdError),
        (
            lambda p: LT(p, 8).without_node("a").without_node("b"),
            hrwhash.errors.EmptyMembershipError,
        ),
        (
            lambda p: LT(p, 8).with_weight("a", 0).with_weight("b", 0),
            hrwhash.errors.AllWeightsZeroError,
        ),
    ],
)
def test_bad_input(call: Any, error: type) -> None:
    with pytest.raises(error):
        call(Placement(["a", "b"]))


def test_changes_move_only_the_changed_node() -> None:
    table: LevelledSlotTable[bytes] = LevelledSlotTable(Placement([b"x", b"y", b"w"]), 30)
    assert table.slot_counts() == [10, 10, 10]
    grown = table.with_node(b"z", 1.0)
    assert list(grown.placement) == [b"x", b"y", b"w", b"z"]
    # round(30 / 4) = 8 slots (7.5 rounded half up), all to the new node.
    moved = [(a, b) for a, b in zip(table.assignments(), grown.assignments()) if a != b]
    assert len(moved) == 8 and all(b == 3 for _, b in moved)
    assert set(grown.owner(f"k{i}") for i in range(200)) <= {b"x", b"y", b"w", b"z"}
