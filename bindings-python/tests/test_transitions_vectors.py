"""Every case of conformance/transitions.json (VIEW.md 6) through the binding: expected movement
between seeds, route_top's sets and add/drop order, and the rows of a diff. What the binding does
not offer is skipped only as the file's not_offered names it for Python."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

from hrwhash import Transition, View

FILE = Path(__file__).resolve().parents[2] / "conformance" / "transitions.json"
DATA: Dict[str, Any] = json.loads(FILE.read_text())
LANGUAGE = "python"
# The parts of the cases this suite does not run: Diff.nodes rows are (id, before, after), and a
# diff counts owners only.
SKIPPED = {"diff_row_indexes", "diff_row_moves", "replica_diffs"}


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
    if case["k"] != 1:
        assert "replica_diffs" in SKIPPED
        pytest.skip("not offered: " + DATA["not_offered"][LANGUAGE]["replica_diffs"])
    old, new = sides(case)
    t = Transition(old, new)
    d = t.diff(f"key-{i}" for i in range(case["keys"]))
    assert (d.keys, d.moved) == (case["keys_counted"], case["moved"])
    old_ids, new_ids = old.placement.nodes, new.placement.nodes
    assert d.flows == [(old_ids[f], new_ids[to], n) for f, to, n in case["flows"]]
    # Rows in the file's order, each with its id and counts (indexes and moves not offered).
    want: List[Tuple[str, int, int]] = [(r["id"], r["before"], r["after"]) for r in case["nodes"]]
    assert d.nodes == want
