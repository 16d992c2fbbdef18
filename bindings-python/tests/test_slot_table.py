"""Every case of conformance/policies/slot-table.json through the binding, and every bad input of
SlotTable with the error it raises (POLICIES.md, "slot-table (v1)")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

import hrwhash
from hrwhash import Placement, SlotTable, View

VECTORS = Path(__file__).resolve().parents[2] / "conformance" / "policies" / "slot-table.json"
DATA: Dict[str, Any] = json.loads(VECTORS.read_text())


def placement_of(case: Dict[str, Any], nodes: List[Dict[str, Any]]) -> Placement[str]:
    seed = bytes.fromhex(case["seed"]) if "seed" in case else None
    return Placement([n["id"] for n in nodes], [n.get("weight", 1.0) for n in nodes], seed=seed)


def check(table: SlotTable[str], expected: Dict[str, Any]) -> None:
    assert table.capacities() == expected["capacities"]
    assert table.assignments() == expected["table"]
    ids = list(table.placement)
    for s in range(0, table.slots, max(1, table.slots // 16)):
        assert table.owner_of_slot(s) == ids[expected["table"][s]]


def test_file_is_the_one_this_suite_reads() -> None:
    assert DATA["policy"] == hrwhash.SLOT_TABLE_POLICY == "slot-table-v1"
    assert len(DATA["cases"]) >= 10 and len(DATA["error_cases"]) >= 5


@pytest.mark.parametrize("case", DATA["cases"], ids=lambda c: c["name"])
def test_case(case: Dict[str, Any]) -> None:
    placement = placement_of(case, case["nodes"])
    table = SlotTable(placement, case["slots"], overload_ppm=case["overload_ppm"])
    assert table.slots == len(table) == case["slots"]
    assert table.overload_ppm == case["overload_ppm"]
    check(table, case["expected"])
    ids = list(placement)
    for k in case["expected"]["keys"]:
        assert table.slot(k["key"]) == table.slot(k["key"].encode()) == k["slot"]
        assert table.owner(k["key"]) == ids[k["owner"]]
    for change in case.get("changes", []):
        if change["op"] == "add":
            table = table.with_node(change["id"], change.get("weight"))
        elif change["op"] == "remove":
            table = table.without_node(change["id"])
        else:
            table = table.with_weight(change["id"], change["weight"])
        check(table, change["expected"])


@pytest.mark.parametrize("case", DATA["error_cases"], ids=lambda c: c["name"])
def test_error_case(case: Dict[str, Any]) -> None:
    placement = placement_of(case, case["nodes"])
    slots = int(case["slots"])
    if "slot" not in case:
        with pytest.raises(hrwhash.errors.InvalidSlotCountError) as e:
            SlotTable(placement, slots, overload_ppm=case["overload_ppm"])
        assert isinstance(e.value, ValueError) and e.value.value == slots
        return
    table = SlotTable(placement, slots, overload_ppm=case["overload_ppm"])
    with pytest.raises(hrwhash.errors.SlotOutOfRangeError) as r:
        table.owner_of_slot(int(case["slot"]))
    assert isinstance(r.value, IndexError) and r.value.slots == slots


def test_built_from_a_view() -> None:
    view = View(Placement(["a", "b", "c"]), 7)
    assert SlotTable(view, 64).assignments() == SlotTable(view.placement, 64).assignments()


def test_ints_beyond_the_platform_are_out_of_range() -> None:
    table = SlotTable(Placement(["a", "b"]), 8)
    with pytest.raises(hrwhash.errors.SlotOutOfRangeError):
        table.owner_of_slot(2**70)
    with pytest.raises(hrwhash.errors.InvalidSlotCountError):
        SlotTable(Placement(["a"]), 2**24 + 1)


# Deliberate misuse: typed as Any so that the checker lets the wrong types through.
ST: Any = SlotTable


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda p: ST(p, -1), hrwhash.errors.InvalidCountError),
        (lambda p: ST(p, 1.5), hrwhash.errors.InvalidCountError),
        (lambda p: ST(p, "8"), hrwhash.errors.InvalidArgumentError),
        (lambda p: ST(p, True), hrwhash.errors.InvalidArgumentError),
        (lambda p: ST(["a"], 8), hrwhash.errors.InvalidArgumentError),
        (lambda p: ST(p, 8, overload_ppm=-1), hrwhash.errors.InvalidCountError),
        (lambda p: ST(p, 8, overload_ppm=2**32), hrwhash.errors.InvalidCountError),
        (lambda p: ST(p, 8, overload_ppm="5%"), hrwhash.errors.InvalidArgumentError),
        (lambda p: ST(p, 8, colour=1), hrwhash.errors.InvalidArgumentError),
        (lambda p: ST(p, 8).owner_of_slot(-1), hrwhash.errors.InvalidCountError),
        (lambda p: ST(p, 8).owner_of_slot(None), hrwhash.errors.InvalidArgumentError),
        (lambda p: ST(p, 8).slot(None), hrwhash.errors.InvalidArgumentError),
        (lambda p: ST(p, 8).owner("\ud800"), hrwhash.errors.InvalidTextError),
        (lambda p: ST(p, 8).without_node("zz"), hrwhash.errors.UnknownNodeError),
        (lambda p: ST(p, 8).with_weight("zz", 1.0), hrwhash.errors.UnknownNodeError),
        (lambda p: ST(p, 8).with_weight("a", -1.0), hrwhash.errors.InvalidWeightError),
        (lambda p: ST(p, 8).with_node("a"), hrwhash.errors.DuplicateNodeIdError),
        (lambda p: ST(p, 8).with_node(""), hrwhash.errors.EmptyNodeIdError),
        (
            lambda p: ST(p, 8).without_node("a").without_node("b"),
            hrwhash.errors.EmptyMembershipError,
        ),
        (
            lambda p: ST(p, 8).with_weight("a", 0).with_weight("b", 0),
            hrwhash.errors.AllWeightsZeroError,
        ),
    ],
)
def test_bad_input(call: Any, error: type) -> None:
    with pytest.raises(error):
        call(Placement(["a", "b"]))


def test_changes_keep_ids_as_given() -> None:
    table: SlotTable[bytes] = SlotTable(Placement([b"x", b"y"]), 32, overload_ppm=0)
    grown = table.with_node(b"z", 2.0)
    assert list(grown.placement) == [b"x", b"y", b"z"]
    assert set(grown.owner(f"k{i}") for i in range(200)) <= {b"x", b"y", b"z"}
    assert sum(grown.slot_counts()) == 32
    fresh = SlotTable(grown.placement, 32, overload_ppm=0)
    assert grown.assignments() == fresh.assignments()
    none: Optional[int] = grown.overload_ppm
    assert none == 0
