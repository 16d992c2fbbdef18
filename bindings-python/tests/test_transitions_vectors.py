"""Every case of conformance/transitions.json (VIEW.md 6) through the binding: expected movement
between seeds, route_top's sets and add/drop order, and the rows of a diff. What the binding does
not offer is skipped only as the file's not_offered names it for Python."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Set, Tuple

import pytest

import hrwhash
from hrwhash import Diff, NodeChange, Transition, View
from hrwhash.errors import InvalidCountError, NotOfferedError

FILE = Path(__file__).resolve().parents[2] / "conformance" / "transitions.json"
DATA: Dict[str, Any] = json.loads(FILE.read_text())
LANGUAGE = "python"
# Python runs every part.
SKIPPED: Set[str] = set()


def cases(section: str) -> pytest.MarkDecorator:
    return pytest.mark.parametrize("case", DATA[section], ids=[c["name"] for c in DATA[section]])


def seed(case: Dict[str, Any], member: str) -> Optional[bytes]:
    return bytes.fromhex(case[member]) if member in case else None


def sides(case: Dict[str, Any]) -> Tuple[View, View]:
    return (View.from_json(case["from"], seed=seed(case, "from_seed")),
            View.from_json(case["to"], seed=seed(case, "to_seed")))


def test_the_file_and_what_python_skips() -> None:
    assert DATA["format"] == "hrwhash-view-v1"
    assert set(DATA) == {"format", "_comment", "not_offered", "movement", "routes", "diffs"}
    assert set(DATA["not_offered"][LANGUAGE]) == SKIPPED
    assert all(DATA[s] for s in ("movement", "routes", "diffs"))


@cases("movement")
def test_movement(case: Dict[str, Any]) -> None:
    old, new = sides(case)
    t = Transition(old, new)
    assert t.expected_moved == case["expected_moved"]
    assert t.optimum == case["optimum"]
    # A diff carries the same figures.
    d = t.diff([])
    assert (d.expected_moved, d.optimum) == (case["expected_moved"], case["optimum"])


@cases("routes")
def test_route_top(case: Dict[str, Any]) -> None:
    old, new = sides(case)
    t = Transition(old, new)
    # The binding names nodes by id: the file's indexes are into each side's build order.
    old_ids, new_ids = old.placement.nodes, new.placement.nodes
    for r in case["routes"]:
        got = t.route_top(r["key"], case["k"])
        assert got.before == [old_ids[i] for i in r["before"]], r["key"]
        assert got.after == [new_ids[j] for j in r["after"]], r["key"]
        assert got.add == [new_ids[j] for j in r["add"]], r["key"]
        assert got.drop == [old_ids[i] for i in r["drop"]], r["key"]


@cases("diffs")
def test_diff(case: Dict[str, Any]) -> None:
    old, new = sides(case)
    t = Transition(old, new)
    keys = [f"key-{i}" for i in range(case["keys"])]
    # diff_top with k = 1 counts what diff counts, without the flows.
    if case["k"] == 1:
        check_diff(case, t.diff(iter(keys)), old, new, top=False)
    check_diff(case, t.diff_top(keys, case["k"]), old, new, top=True)
    if case["k"] == 1:
        assert len(list(t.plan(keys))) == case["moved"]
        return
    # The plan lists exactly the keys the diff counts as changed, with route_top's sets.
    planned = list(t.plan_top(iter(keys), case["k"]))
    assert len(planned) == case["moved"]
    for key, route in planned[:20]:
        want = t.route_top(key, case["k"])
        assert (route.before, route.after, route.add, route.drop) == (
            want.before, want.after, want.add, want.drop), key
    assert sum(len(r.add) for _, r in planned) == case["copies_added"]
    assert sum(len(r.drop) for _, r in planned) == case["copies_dropped"]


def check_diff(case: Dict[str, Any], d: Diff, old: View, new: View, top: bool) -> None:
    assert (d.k, d.keys, d.moved) == (case["k"], case["keys_counted"], case["moved"])
    old_ids, new_ids = old.placement.nodes, new.placement.nodes
    flows = [] if top else [(old_ids[f], new_ids[to], n) for f, to, n in case["flows"]]
    assert d.flows == flows
    copies = (case["moved"],) * 2 if case["k"] == 1 else (case["copies_added"], case["copies_dropped"])
    assert (d.copies_added, d.copies_dropped) == copies
    # Rows in the file's order: still the 1.0 tuples (id, before, after) ...
    want: List[Tuple[str, int, int]] = [(r["id"], r["before"], r["after"]) for r in case["nodes"]]
    assert d.nodes == want
    assert all(type(row) is NodeChange and len(row) == 3 for row in d.nodes)
    # ... with every field of the row as attributes.
    fields = ("old_index", "new_index", "before", "after", "added", "dropped")
    got = [{"id": row.node, **{f: getattr(row, f) for f in fields}} for row in d.nodes]
    assert got == case["nodes"]


def test_diff_top_and_plan_top_take_k_as_route_top_does() -> None:
    case = next(c for c in DATA["diffs"] if c["k"] > 1)
    old, new = sides(case)
    t = Transition(old, new)
    keys = ["a", "b", "c"]
    for bad in (-1, 1.5, float("nan"), float("inf")):
        with pytest.raises(InvalidCountError):
            t.diff_top(keys, bad)  # type: ignore[arg-type]
        with pytest.raises(InvalidCountError):
            t.plan_top(keys, bad)  # type: ignore[arg-type]
    for wrong in ("2", None, True):
        with pytest.raises(TypeError):
            t.diff_top(keys, wrong)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            t.plan_top(keys, wrong)  # type: ignore[arg-type]
    # k = 0 compares empty sets: nothing changes; a k beyond the nodes compares every node.
    none = t.diff_top(keys, 0)
    assert none.moved == 0 and all(row.before == row.after == 0 for row in none.nodes)
    assert list(t.plan_top(keys, 0)) == []
    every = len(old.placement.nodes) + len(new.placement.nodes)
    big, whole = t.diff_top(keys, 1000), t.diff_top(keys, every)
    assert big.k == 1000
    assert [row.__getnewargs__() for row in big.nodes] == [row.__getnewargs__() for row in whole.nodes]
    assert any(row.before > 0 for row in whole.nodes)


def test_replica_diffs_need_hrw_v1_on_both_sides() -> None:
    p = hrwhash.ProfilePlacement("pymemcache-rendezvous", ["a", "b"])
    t = Transition(p, hrwhash.Placement(["a", "b", "c"]))
    with pytest.raises(NotOfferedError):
        t.diff_top(["k"], 2)
    with pytest.raises(NotOfferedError):
        t.plan_top(["k"], 2)


def test_node_change_rows_pickle_and_copy() -> None:
    import copy
    import pickle

    t = Transition(hrwhash.Placement(["a", "b"]), hrwhash.Placement(["b", "c"]))
    rows = t.diff(f"k{i}" for i in range(100)).nodes
    for row in rows:
        for back in (pickle.loads(pickle.dumps(row)), copy.copy(row), copy.deepcopy(row)):
            assert type(back) is NodeChange
            assert back.__getnewargs__() == row.__getnewargs__()
    assert [r.new_index for r in rows] == [None, 0, 1]
    assert repr(rows[0]).startswith("NodeChange(node='a', old_index=0, new_index=None, before=")
