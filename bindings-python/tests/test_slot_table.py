"""Every case of conformance/policies/slot-table.json through a ranked SlotTable, the
construction of both modes, every bad input of SlotTable with the error it raises, and tables
read and changed from many threads at once (POLICIES.md, "slot-table (v1)" and "(v2)")."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest

import hrwhash
from hrwhash import Placement, SlotTable, View

VECTORS = Path(__file__).resolve().parents[2] / "conformance" / "policies" / "slot-table.json"
DATA: Dict[str, Any] = json.loads(VECTORS.read_text())


def placement_of(case: Dict[str, Any], nodes: List[Dict[str, Any]]) -> Placement[str]:
    seed = bytes.fromhex(case["seed"]) if "seed" in case else None
    return Placement([n["id"] for n in nodes], [n.get("weight", 1.0) for n in nodes], seed=seed)


def check(table: SlotTable[str], expected: Dict[str, Any]) -> None:
    if table.overload_ppm is None:
        # The plain HRW slot table has no bound: the vectors give every node all the slots.
        assert table.capacities() is None
        assert expected["capacities"] == [table.slots] * len(table.placement)
    else:
        assert table.capacities() == expected["capacities"]
    assert table.assignments() == expected["table"]
    ids = list(table.placement)
    for s in range(0, table.slots, max(1, table.slots // 16)):
        assert table.owner_of_slot(s) == ids[expected["table"][s]]


def test_file_is_the_one_this_suite_reads() -> None:
    assert DATA["policy"] == hrwhash.RANKED_SLOT_TABLE_POLICY == "slot-table-v1"
    assert hrwhash.SLOT_TABLE_POLICY == "slot-table-v2"
    assert len(DATA["cases"]) >= 10 and len(DATA["error_cases"]) >= 5


@pytest.mark.parametrize("case", DATA["cases"], ids=lambda c: c["name"])
def test_case(case: Dict[str, Any]) -> None:
    placement = placement_of(case, case["nodes"])
    table = SlotTable(placement, case["slots"], mode="ranked", overload_ppm=case["overload_ppm"])
    assert table.mode == "ranked"
    assert table.slots == case["slots"]
    assert table.overload_ppm == case["overload_ppm"]
    check(table, case["expected"])
    ids = list(placement)
    for k in case["expected"]["keys"]:
        assert table.slot(k["key"]) == table.slot(k["key"].encode()) == k["slot"]
        assert table.owner(k["key"]) == ids[k["owner"]]
    # The same changes as copies and in place, in one table.
    in_place = SlotTable(placement, case["slots"], mode="ranked", overload_ppm=case["overload_ppm"])
    for n, change in enumerate(case.get("changes", [])):
        if change["op"] == "add":
            table = table.with_node(change["id"], change.get("weight"))
            in_place.add_node(change["id"], change.get("weight"))
        elif change["op"] == "remove":
            table = table.without_node(change["id"])
            in_place.remove_node(change["id"])
        else:
            table = table.with_weight(change["id"], change["weight"])
            in_place.set_weight(change["id"], change["weight"])
        check(table, change["expected"])
        check(in_place, change["expected"])
        assert table.change_count == in_place.change_count == n + 1
        assert table.fingerprint == in_place.fingerprint
        # A ranked table depends only on the membership: a fresh build gives the same table.
        fresh = SlotTable(table.placement, case["slots"], mode="ranked", overload_ppm=case["overload_ppm"])
        assert fresh.assignments() == table.assignments()


@pytest.mark.parametrize("case", DATA["error_cases"], ids=lambda c: c["name"])
def test_error_case(case: Dict[str, Any]) -> None:
    placement = placement_of(case, case["nodes"])
    slots = int(case["slots"])
    if "slot" not in case:
        with pytest.raises(hrwhash.errors.InvalidSlotCountError) as e:
            SlotTable(placement, slots, mode="ranked", overload_ppm=case["overload_ppm"])
        assert isinstance(e.value, ValueError) and e.value.value == slots
        return
    table = SlotTable(placement, slots, mode="ranked", overload_ppm=case["overload_ppm"])
    with pytest.raises(hrwhash.errors.SlotOutOfRangeError) as r:
        table.owner_of_slot(int(case["slot"]))
    assert isinstance(r.value, IndexError) and r.value.slots == slots


def test_the_default_mode_is_levelled() -> None:
    p = Placement(["a", "b", "c"])
    table = SlotTable(p, 30)
    assert (table.mode, table.overload_ppm, table.capacities()) == ("levelled", None, None)
    assert table.slot_counts() == [10, 10, 10]
    assert table.assignments() == SlotTable(p, 30, mode="levelled").assignments()
    ranked = SlotTable(p, 30, mode="ranked")
    assert (ranked.mode, ranked.overload_ppm, ranked.capacities()) == ("ranked", None, None)
    assert ranked.fingerprint != table.fingerprint
    bounded = SlotTable(p, 30, mode="ranked", overload_ppm=0)
    assert bounded.capacities() == [10, 10, 10] and bounded.overload_ppm == 0
    assert (table.epoch, table.change_count) == (0, 0)
    assert list(table.initial) == list(table.placement) == ["a", "b", "c"]


def test_built_from_a_view() -> None:
    view = View(Placement(["a", "b", "c"]), 7)
    for mode in ("levelled", "ranked"):
        from_view: SlotTable[Any] = SlotTable(view, 64, mode=mode)
        assert from_view.assignments() == SlotTable(view.placement, 64, mode=mode).assignments()
        # The view gives its nodes; the epoch is the table's own argument.
        assert from_view.epoch == 0
        assert SlotTable(view, 64, mode=mode, epoch=7).view().fingerprint == view.fingerprint


def test_ints_beyond_the_platform_are_out_of_range() -> None:
    for mode in ("levelled", "ranked"):
        table = SlotTable(Placement(["a", "b"]), 8, mode=mode)
        with pytest.raises(hrwhash.errors.SlotOutOfRangeError):
            table.owner_of_slot(2**70)
        with pytest.raises(hrwhash.errors.InvalidSlotCountError):
            SlotTable(Placement(["a"]), 2**24 + 1, mode=mode)


# Deliberate misuse: typed as Any so that the checker lets the wrong types through.
ST: Any = SlotTable


def ranked(p: Any, slots: Any = 8, **kw: Any) -> Any:
    return ST(p, slots, mode="ranked", **kw)


def levelled(p: Any, slots: Any = 8, **kw: Any) -> Any:
    return ST(p, slots, **kw)


BadInput = List[Tuple[Callable[[Any], object], type]]

BAD_INPUT: BadInput = [
    (lambda p: ST(p, 8, mode="x"), hrwhash.errors.InvalidArgumentError),
    (lambda p: ST(p, 8, mode="Levelled"), hrwhash.errors.InvalidArgumentError),
    (lambda p: ST(p, 8, mode="slot-table-v1"), hrwhash.errors.InvalidArgumentError),
    (lambda p: ST(p, 8, mode=b"ranked"), hrwhash.errors.InvalidArgumentError),
    (lambda p: ST(p, 8, overload_ppm=0), hrwhash.errors.InvalidArgumentError),
    (lambda p: ST(p, 8, mode="levelled", overload_ppm=50_000), hrwhash.errors.InvalidArgumentError),
    (lambda p: ST(p, 8, overload_ppm=-1), hrwhash.errors.InvalidArgumentError),
    (lambda p: ST(p, 8, overload_ppm="5%"), hrwhash.errors.InvalidArgumentError),
    (lambda p: ranked(p, overload_ppm=-1), hrwhash.errors.InvalidCountError),
    (lambda p: ranked(p, overload_ppm=2**32), hrwhash.errors.InvalidCountError),
    (lambda p: ranked(p, overload_ppm="5%"), hrwhash.errors.InvalidArgumentError),
    (lambda p: ST(p, 8, epoch="1"), hrwhash.errors.InvalidArgumentError),
    (lambda p: ST(p, 8, epoch=True), hrwhash.errors.InvalidArgumentError),
    (lambda p: ST(p, 8, epoch=-1), hrwhash.errors.InvalidCountError),
    (lambda p: ST(p, 8, epoch=2**64), hrwhash.errors.InvalidCountError),
    (lambda p: ST(p, 8).with_epoch("1"), hrwhash.errors.InvalidArgumentError),
    (lambda p: ST(p, 8).with_epoch(2**64), hrwhash.errors.InvalidCountError),
    (lambda p: ST(p, 8, colour=1), hrwhash.errors.InvalidArgumentError),
    (lambda p: ST(["a"], 8), hrwhash.errors.InvalidArgumentError),
    (lambda p: ST("a", 8), hrwhash.errors.InvalidArgumentError),
]
def per_mode(m: Callable[..., Any]) -> BadInput:
    return [
        (lambda p: m(p, -1), hrwhash.errors.InvalidCountError),
        (lambda p: m(p, 1.5), hrwhash.errors.InvalidCountError),
        (lambda p: m(p, 0), hrwhash.errors.InvalidSlotCountError),
        (lambda p: m(p, 2**24 + 1), hrwhash.errors.InvalidSlotCountError),
        (lambda p: m(p, "8"), hrwhash.errors.InvalidArgumentError),
        (lambda p: m(p, True), hrwhash.errors.InvalidArgumentError),
        (lambda p: m(p).owner_of_slot(-1), hrwhash.errors.InvalidCountError),
        (lambda p: m(p).owner_of_slot(8), hrwhash.errors.SlotOutOfRangeError),
        (lambda p: m(p).owner_of_slot(None), hrwhash.errors.InvalidArgumentError),
        (lambda p: m(p).slot(None), hrwhash.errors.InvalidArgumentError),
        (lambda p: m(p).owner("\ud800"), hrwhash.errors.InvalidTextError),
        (lambda p: m(p).without_node("zz"), hrwhash.errors.UnknownNodeError),
        (lambda p: m(p).remove_node("zz"), hrwhash.errors.UnknownNodeError),
        (lambda p: m(p).without_node(3), hrwhash.errors.InvalidArgumentError),
        (lambda p: m(p).with_weight("zz", 1.0), hrwhash.errors.UnknownNodeError),
        (lambda p: m(p).set_weight("zz", 1.0), hrwhash.errors.UnknownNodeError),
        (lambda p: m(p).with_weight("a", -1.0), hrwhash.errors.InvalidWeightError),
        (lambda p: m(p).set_weight("a", float("nan")), hrwhash.errors.InvalidWeightError),
        (lambda p: m(p).set_weight("a", "2"), hrwhash.errors.InvalidArgumentError),
        (lambda p: m(p).with_node("a"), hrwhash.errors.DuplicateNodeIdError),
        (lambda p: m(p).add_node(b"a"), hrwhash.errors.DuplicateNodeIdError),
        (lambda p: m(p).with_node(""), hrwhash.errors.EmptyNodeIdError),
        (lambda p: m(p).add_node(""), hrwhash.errors.EmptyNodeIdError),
        (lambda p: m(p).add_node(None), hrwhash.errors.InvalidArgumentError),
        (lambda p: m(p).add_node("c", "1"), hrwhash.errors.InvalidArgumentError),
        (lambda p: m(p).add_node("c", -2), hrwhash.errors.InvalidWeightError),
        (lambda p: m(p).add_node("c", domain=3), hrwhash.errors.InvalidArgumentError),
        (lambda p: m(p).add_node("c", ttl=3), hrwhash.errors.InvalidArgumentError),
        (lambda p: m(p).add_node("\ud800"), hrwhash.errors.InvalidTextError),
        (
            lambda p: m(p).without_node("a").without_node("b"),
            hrwhash.errors.EmptyMembershipError,
        ),
        (
            lambda p: m(p).with_weight("a", 0).with_weight("b", 0),
            hrwhash.errors.AllWeightsZeroError,
        ),
    ]


BAD_INPUT += per_mode(ranked) + per_mode(levelled)


@pytest.mark.parametrize("call, error", BAD_INPUT)
def test_bad_input(call: Callable[[Any], object], error: type) -> None:
    with pytest.raises(error) as info:
        call(Placement(["a", "b"]))
    assert info.type is error


@pytest.mark.parametrize("mode", ["levelled", "ranked"])
def test_failed_changes_leave_the_table(mode: Any) -> None:
    table = SlotTable(Placement(["a", "b"]), 16, mode=mode)
    table.set_weight("a", 0)
    before = (table.assignments(), table.fingerprint, table.change_count, list(table.placement))
    with pytest.raises(hrwhash.errors.AllWeightsZeroError):
        table.remove_node("b")  # only a, drained, would be left
    with pytest.raises(hrwhash.errors.AllWeightsZeroError):
        table.set_weight("b", 0)
    with pytest.raises(hrwhash.errors.DuplicateNodeIdError) as dup:
        table.add_node("b")
    # The index of a duplicate added by a change is the change's position in the history.
    assert (dup.value.index, dup.value.first_index) == (1, 1)
    with pytest.raises(hrwhash.errors.EmptyNodeIdError) as empty:
        table.add_node("")
    assert empty.value.index == 1
    with pytest.raises(hrwhash.errors.UnknownNodeError):
        table.remove_node("zz")
    with pytest.raises(hrwhash.errors.InvalidWeightError):
        table.set_weight("b", float("inf"))
    assert (table.assignments(), table.fingerprint, table.change_count, list(table.placement)) == before
    one = SlotTable(Placement(["a"]), 4, mode=mode)
    with pytest.raises(hrwhash.errors.EmptyMembershipError):
        one.remove_node("a")
    assert (one.change_count, list(one.placement), one.assignments()) == (0, ["a"], [0, 0, 0, 0])


@pytest.mark.parametrize("mode", ["levelled", "ranked"])
def test_in_place_changes_and_copies_agree(mode: Any) -> None:
    first: SlotTable[str] = SlotTable(Placement(["a", "b", "c"]), 64, mode=mode, epoch=5)
    copy = first.with_node("d", 2.0, domain="zone-9").without_node("a").with_weight("c", 0.5)
    assert (first.change_count, list(first.placement)) == (0, ["a", "b", "c"])
    table: SlotTable[str] = SlotTable(Placement(["a", "b", "c"]), 64, mode=mode, epoch=5)
    table.add_node("d", 2.0, domain="zone-9")
    table.remove_node("a")
    table.set_weight("c", 0.5)
    assert table.assignments() == copy.assignments()
    assert table.fingerprint == copy.fingerprint and table.to_json() == copy.to_json()
    assert (table.epoch, table.slots, table.change_count) == (5, 64, 3)
    assert list(table.placement) == ["b", "c", "d"] and table.placement.domains == (None, None, "zone-9")
    assert table.placement.weights == (1.0, 0.5, 2.0)
    assert list(table.initial) == ["a", "b", "c"]
    assert table.view().fingerprint == View(table.placement, 5).fingerprint
    later = table.with_epoch(6)
    assert (later.epoch, table.epoch) == (6, 5) and later.fingerprint == table.fingerprint
    assert isinstance(repr(table), str) and table.fingerprint in repr(table) and mode in repr(table)


def test_ids_stay_as_given() -> None:
    table: SlotTable[bytes] = SlotTable(Placement([b"x", b"y"]), 32, mode="ranked", overload_ppm=0)
    grown = table.with_node(b"z", 2.0)
    assert list(grown.placement) == [b"x", b"y", b"z"]
    assert set(grown.owner(f"k{i}") for i in range(200)) <= {b"x", b"y", b"z"}
    assert sum(grown.slot_counts()) == 32
    fresh = SlotTable(grown.placement, 32, mode="ranked", overload_ppm=0)
    assert grown.assignments() == fresh.assignments()
    ppm: Optional[int] = grown.overload_ppm
    assert ppm == 0
    levelled_table = SlotTable(Placement([b"a", b"\xff"]), 8)
    levelled_table.add_node(b"\xfe")
    assert {levelled_table.owner_of_slot(s) for s in range(8)} == {b"a", b"\xff", b"\xfe"}


def test_writers_and_readers_on_many_threads() -> None:
    # In-place changes on some threads while others read: no exception (no "Already borrowed"),
    # and every read sees a whole table.
    nodes = [f"n{i}" for i in range(8)]
    table = SlotTable(Placement(nodes), 4096)
    errors: List[BaseException] = []
    reads: List[int] = []
    stop = threading.Event()

    def writer(w: int) -> None:
        try:
            for i in range(40):
                node = f"w{w}-{i}"
                table.add_node(node)
                table.set_weight(node, 2.0)
                table.remove_node(node)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    def reader() -> None:
        try:
            while not stop.is_set():
                counts = table.slot_counts()
                assert sum(counts) == 4096
                owner = table.owner("user:42")
                assert isinstance(owner, str)
                assert len(table.assignments()) == 4096
                table.with_epoch(1)
                assert len(table.fingerprint) == 32
                reads.append(1)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    writers = [threading.Thread(target=writer, args=(w,)) for w in range(3)]
    readers = [threading.Thread(target=reader) for _ in range(3)]
    for t in readers + writers:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    for t in readers:
        t.join()
    assert errors == []
    assert len(reads) > 0
    assert table.change_count == 3 * 40 * 3
    assert list(table.placement) == nodes
    # Every writer's changes were applied whole: replaying the document gives the same table.
    again = SlotTable.from_json(table.to_json())
    assert again.fingerprint == table.fingerprint


def test_copies_on_many_threads_share_nothing() -> None:
    table = SlotTable(Placement(["a", "b", "c"]), 1024, mode="ranked", overload_ppm=10_000)
    results: List[str] = []
    lock = threading.Lock()

    def work(i: int) -> None:
        copy = table.with_node(f"x{i}")
        copy.remove_node("a")
        with lock:
            results.append(copy.fingerprint)

    threads = [threading.Thread(target=work, args=(i % 2,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(results)) == 2
    assert table.change_count == 0 and list(table.placement) == ["a", "b", "c"]


@pytest.mark.parametrize("mode", ["levelled", "ranked"])
def test_at_most_65536_changes(mode: Any) -> None:
    table = SlotTable(Placement(["a"]), 1, mode=mode)
    for i in range(65_536):
        table.set_weight("a", 1.0 + i % 2)
    full = (table.change_count, table.fingerprint)
    for change in (lambda: table.set_weight("a", 1.0), lambda: table.with_node("b")):
        with pytest.raises(hrwhash.errors.InvalidViewError) as info:
            change()
        assert (info.value.field, info.value.index, info.value.reason) == ("changes", 65_536, "out_of_range")
    assert (table.change_count, table.fingerprint) == full == (65_536, table.with_epoch(3).fingerprint)
