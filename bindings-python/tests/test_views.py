"""Every case of conformance/views.json through the binding, plus properties of views, transitions
and ramps over random memberships (conformance/VIEW.md)."""

from __future__ import annotations

import errno
import itertools
import os
import subprocess
import sys
import threading
import json
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple, Type

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hrwhash
from hrwhash import RAMP_GRID, Placement, RampPlan, Transition, View, v1

VIEWS = Path(__file__).resolve().parents[2] / "conformance" / "views.json"
DATA: Dict[str, Any] = json.loads(VIEWS.read_text())

# Every member of the file and of its cases that this suite reads; anything else is a case kind or a
# field added to the file that the binding is not yet checked against.
KINDS: Dict[str, List[str]] = {
    "valid": ["name", "document", "seed", "canonical", "fingerprint", "seed_fingerprint", "epoch", "owners"],
    "equivalent": ["name", "a", "b", "fingerprint"],
    "invalid": ["name", "document", "document_hex", "seed", "error", "field", "index", "reason", "first_index"],
    "movement": ["name", "nodes", "expected_moved", "optimum"],
    "ramps": [
        "name", "from", "to", "max_move", "grid", "steps", "total_moved", "direct_moved", "optimum", "error",
        "field", "index", "reason",
    ],
}
TOP_LEVEL = {"format", "_comment", "default_seed_fingerprint", *KINDS}

ERRORS: Dict[str, Type[hrwhash.HrwError]] = {
    "EmptyMembership": hrwhash.errors.EmptyMembershipError,
    "EmptyNodeId": hrwhash.errors.EmptyNodeIdError,
    "DuplicateNodeId": hrwhash.errors.DuplicateNodeIdError,
    "InvalidWeight": hrwhash.errors.InvalidWeightError,
    "AllWeightsZero": hrwhash.errors.AllWeightsZeroError,
    "InvalidJson": hrwhash.errors.InvalidJsonError,
    "InvalidView": hrwhash.errors.InvalidViewError,
    "SeedMismatch": hrwhash.errors.SeedMismatchError,
    "InvalidMoveLimit": hrwhash.errors.InvalidMoveLimitError,
}


def cases(kind: str) -> pytest.MarkDecorator:
    return pytest.mark.parametrize("case", DATA[kind], ids=[c["name"] for c in DATA[kind]])


def document(case: Dict[str, Any]) -> bytes:
    if "document_hex" in case:
        return bytes.fromhex(case["document_hex"])
    text: str = case["document"]
    # A lone surrogate escape is JSON text; the document itself is plain UTF-8.
    return text.encode("utf-8", "surrogatepass")


def seed(case: Dict[str, Any]) -> Optional[bytes]:
    return bytes.fromhex(case["seed"]) if "seed" in case else None


def test_file_has_only_known_kinds_and_fields() -> None:
    assert DATA["format"] == hrwhash.VIEW_FORMAT == "hrwhash-view-v1"
    assert set(DATA) == TOP_LEVEL, f"unknown members of views.json: {set(DATA) - TOP_LEVEL}"
    for kind, fields in KINDS.items():
        assert DATA[kind], f"no {kind} cases"
        for case in DATA[kind]:
            unknown = set(case) - set(fields)
            assert not unknown, f"{kind} case {case['name']} has unknown fields {unknown}"


def test_default_seed_fingerprint() -> None:
    view = View(Placement(["a"]), 0)
    assert view.seed_fingerprint == DATA["default_seed_fingerprint"]
    assert view.has_default_seed


@cases("valid")
def test_valid(case: Dict[str, Any], tmp_path: Path) -> None:
    text = case["document"]
    view = View.from_json(text, seed=seed(case))
    assert view.to_json() == case["canonical"]
    assert view.fingerprint == case["fingerprint"]
    assert view.seed_fingerprint == case["seed_fingerprint"]
    assert view.epoch == int(case["epoch"])
    nodes = view.placement.nodes
    for o in case["owners"]:
        assert view.placement.owner(o["key"]) == nodes[o["owner"]], o["key"]
    # The same document as bytes and from a file, and the canonical form read back.
    assert View.from_json(document(case), seed=seed(case)).to_json() == case["canonical"]
    path = tmp_path / "view.json"
    path.write_bytes(document(case))
    assert View.from_file(path, seed=seed(case)).fingerprint == case["fingerprint"]
    again = View.from_json(case["canonical"], seed=seed(case))
    assert again.to_json() == case["canonical"]
    assert again == view
    # Built from the loaded placement, the view writes the same bytes.
    assert View(view.placement, view.epoch).to_json() == case["canonical"]


@cases("equivalent")
def test_equivalent(case: Dict[str, Any]) -> None:
    a, b = View.from_json(case["a"]), View.from_json(case["b"])
    assert a.fingerprint == b.fingerprint == case["fingerprint"]
    assert a.with_epoch(0).to_json() == b.with_epoch(0).to_json()


def check_error(case: Dict[str, Any], err: hrwhash.HrwError) -> None:
    assert type(err) is ERRORS[case["error"]], repr(err)
    assert isinstance(err, ValueError)
    if case["error"] == "InvalidView":
        assert isinstance(err, hrwhash.errors.InvalidViewError)
        assert (err.field, err.index, err.reason) == (case["field"], case["index"], case["reason"])
    elif "index" in case:
        assert getattr(err, "index") == case["index"]
    if "first_index" in case:
        assert getattr(err, "first_index") == case["first_index"]
    if isinstance(err, hrwhash.errors.InvalidJsonError):
        # The attributes are the core's position, the one its message names.
        assert err.line is not None and err.line >= 1 and err.column is not None
        assert f"line {err.line}, column {err.column}" in str(err)


@cases("invalid")
def test_invalid(case: Dict[str, Any], tmp_path: Path) -> None:
    with pytest.raises(hrwhash.HrwError) as info:
        View.from_json(document(case), seed=seed(case))
    check_error(case, info.value)
    path = tmp_path / "view.json"
    path.write_bytes(document(case))
    with pytest.raises(hrwhash.HrwError) as info:
        View.from_file(str(path), seed=seed(case))
    check_error(case, info.value)
    assert str(path) in str(info.value)


@cases("movement")
def test_movement(case: Dict[str, Any]) -> None:
    def side(which: str) -> Placement[str]:
        nodes = [n for n in case["nodes"] if n[which] != "0"]
        weights = [int(n[which]) / 2**32 for n in nodes]
        assert [v1.weight_to_fixed(w) for w in weights] == [int(n[which]) for n in nodes]
        return Placement([n["id"] for n in nodes], weights)

    t = Transition(side("old"), side("new"))
    assert t.expected_moved == case["expected_moved"]
    assert t.optimum == case["optimum"]
    diff = t.diff([])
    assert (diff.expected_moved, diff.optimum) == (case["expected_moved"], case["optimum"])


@cases("ramps")
def test_ramp(case: Dict[str, Any]) -> None:
    old, new = View.from_json(case["from"]), View.from_json(case["to"])
    if "error" in case:
        with pytest.raises(hrwhash.HrwError) as info:
            hrwhash.ramp(old, new, case["max_move"])
        check_error(case, info.value)
        return
    assert case["grid"] == RAMP_GRID
    plan = RampPlan(old, new, case["max_move"])
    assert plan.max_move == case["max_move"]
    assert len(plan) == len(plan.steps) == len(case["steps"])
    views = plan.views()
    for i, (step, want) in enumerate(zip(plan.steps, case["steps"])):
        assert step.epoch == int(want["epoch"])
        assert step.position == want["position"]
        assert step.moved == want["moved"]
        assert step.moved <= case["max_move"]
        assert step.removes_drained == want["removes_drained"]
        view = plan.view(i)
        assert view == views[i]
        assert view.epoch == step.epoch
        got = [(n, v1.weight_to_fixed(w)) for n, w in zip(view.placement.nodes, view.placement.weights)]
        assert got == [(w["id"], int(w["weight"])) for w in want["weights"]]
    assert plan.total_moved == case["total_moved"]
    assert plan.direct_moved == case["direct_moved"]
    assert plan.optimum == case["optimum"]
    if plan.steps:
        assert views[-1].fingerprint == new.fingerprint
        assert views[-1].epoch == old.epoch + len(plan.steps)
    else:
        assert old.fingerprint == new.fingerprint


# --- the binding's own checks: argument errors --------------------------------------------------


def test_argument_errors() -> None:
    view = View(Placement(["a", "b"]), 3)
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        View.from_json(42)  # type: ignore[arg-type]
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        View(Placement(["a"]), True)
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        View(Placement(["a"]), "1")  # type: ignore[arg-type]
    # An epoch outside 0 ..= 2**64 - 1 is checked as a count is (API.md section 3), as in Node.
    for bad in (-1, 2**64, 1.5, float("nan"), float("inf")):
        with pytest.raises(hrwhash.errors.InvalidCountError):
            View(Placement(["a"]), bad)  # type: ignore[arg-type]
        with pytest.raises(hrwhash.errors.InvalidCountError):
            view.with_epoch(bad)  # type: ignore[arg-type]
    assert View(Placement(["a"]), 3.0).epoch == 3  # type: ignore[arg-type]
    assert view.with_epoch(2**64 - 1).epoch == 2**64 - 1
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        View.from_json(view.to_json(), seed="0123456789abcdef")  # type: ignore[arg-type]
    with pytest.raises(hrwhash.errors.InvalidSeedLengthError):
        View.from_json(view.to_json(), seed=b"short")
    with pytest.raises(hrwhash.errors.InvalidTextError):
        View.from_json("\ud800")
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        Transition(view, ["a"])  # type: ignore[arg-type]
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        hrwhash.ramp(view, view, True)
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        hrwhash.ramp(view, Placement(["a"]), 0.5)  # type: ignore[arg-type]
    for bad in (0.0, -0.5, 1.5, float("nan"), 10**400):
        with pytest.raises(hrwhash.errors.InvalidMoveLimitError):
            hrwhash.ramp(view, view, bad)
    secret = View(Placement(["a", "b"], seed=bytes(16)), 3)
    with pytest.raises(hrwhash.errors.SeedMismatchError):
        hrwhash.ramp(view, secret, 0.5)
    with pytest.raises(FileNotFoundError) as missing:
        View.from_file("/nonexistent/view.json")
    assert missing.value.filename == "/nonexistent/view.json"
    with pytest.raises(IsADirectoryError):
        View.from_file(Path(__file__).parent)
    # A NUL inside the path names no file: the OSError of an invalid argument (the C ABI's
    # HRW_STATUS_IO), never errno 0 and never the file its prefix names.
    with pytest.raises(OSError) as nul:
        View.from_file(str(Path(__file__).parent / "views.json") + "\0x")
    assert nul.value.errno == errno.EINVAL and type(nul.value) is OSError
    # An endless stream is read only up to its first byte no JSON holds.
    with pytest.raises(hrwhash.errors.InvalidJsonError) as zeros:
        View.from_file("/dev/zero")
    assert (zeros.value.line, zeros.value.column) == (1, 1)
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        View.from_file(3)  # type: ignore[arg-type]
    t = Transition(view, view)
    with pytest.raises(hrwhash.errors.InvalidCountError):
        t.route_top("k", -1)
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        t.route(None)  # type: ignore[arg-type]
    with pytest.raises(hrwhash.errors.InvalidArgumentError):
        t.diff("abc")
    with pytest.raises(hrwhash.errors.InvalidArgumentError) as arg:
        list(Transition(view, View(Placement(["a"]), 4)).plan(["x", "y", 3]))  # type: ignore[list-item]
    assert arg.value.index == 2
    plan = hrwhash.ramp(view, View(Placement(["a", "b", "c"]), 4), 1.0)
    with pytest.raises(hrwhash.errors.IndexOutOfRangeError) as past:
        plan.view(len(plan))
    assert (past.value.index, past.value.len) == (len(plan), len(plan))
    assert isinstance(past.value, IndexError)


def test_secret_seed_is_never_written() -> None:
    secret = b"0123456789abcdef"
    view = View(Placement(["a", "b"], seed=secret), 1)
    text = view.to_json()
    assert secret.decode() not in text and secret.hex() not in text
    assert not view.has_default_seed
    assert View.from_json(text, seed=secret).fingerprint == view.fingerprint
    with pytest.raises(hrwhash.errors.SeedMismatchError):
        View.from_json(text)


def test_float_weights_round_trip() -> None:
    # Weights from floats have at most 53 significant bits, so the canonical decimal reads back to
    # the same fixed-point weight (VIEW.md 3).
    view = View(Placement(["a", "b"], [1 + 2**-32, 3.0]), 0)
    again = View.from_json(view.to_json())
    assert again.placement.weights == view.placement.weights


# --- properties ----------------------------------------------------------------------------------

ids = st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=12, unique=True)
keys = st.lists(st.binary(max_size=20), max_size=60)
weights = st.one_of(st.just(0.0), st.just(1.0), st.sampled_from([0.5, 2.0, 3.25]))


@st.composite
def placements(draw: st.DrawFn) -> Placement[str]:
    nodes = draw(ids)
    ws = draw(st.lists(weights, min_size=len(nodes), max_size=len(nodes)))
    if all(w == 0 for w in ws):
        ws[0] = 1.0
    return Placement(nodes, ws)


@st.composite
def pairs(draw: st.DrawFn) -> Tuple[View, View]:
    a = draw(placements())
    b = draw(placements())
    return View(a, draw(st.integers(0, 1000))), View(b, 5000)


@settings(max_examples=60, deadline=None)
@given(pairs(), keys)
def test_route_agrees_with_owner(views: Tuple[View, View], ks: List[bytes]) -> None:
    old, new = views
    t = Transition(old, new)
    for k in ks:
        r = t.route(k)
        assert r.old == old.placement.owner(k)
        assert r.new == new.placement.owner(k)
        assert r.moved == (r.old != r.new)
        assert old.placement.nodes[r.old_index] == r.old and new.placement.nodes[r.new_index] == r.new
        top = t.route_top(k, 2)
        assert top.before == old.placement.rank(k, 2)
        assert top.after == new.placement.rank(k, 2)
        assert top.add == [n for n in top.after if n not in top.before]
        assert top.drop == [n for n in top.before if n not in top.after]


@settings(max_examples=60, deadline=None)
@given(pairs(), keys)
def test_diff_and_plan(views: Tuple[View, View], ks: List[bytes]) -> None:
    old, new = views
    t = Transition(old, new)
    diff = t.diff(iter(ks))
    assert diff.keys == len(ks)
    assert sum(c for _, _, c in diff.flows) == diff.moved
    moved = [(k, old.placement.owner(k), new.placement.owner(k)) for k in ks]
    moved = [m for m in moved if m[1] != m[2]]
    assert diff.moved == len(moved)
    assert list(t.plan(iter(ks))) == moved
    before = {n: sum(1 for k in ks if old.placement.owner(k) == n) for n in old.placement.nodes}
    after = {n: sum(1 for k in ks if new.placement.owner(k) == n) for n in new.placement.nodes}
    rows = {n: (b, a) for n, b, a in diff.nodes}
    assert set(rows) == set(before) | set(after)
    assert rows == {n: (before.get(n, 0), after.get(n, 0)) for n in rows}


@settings(max_examples=25, deadline=None)
@given(pairs(), st.sampled_from([0.05, 0.2, 1.0]))
def test_ramp_ends_at_target(views: Tuple[View, View], limit: float) -> None:
    old, new = views
    plan = hrwhash.ramp(old, new, limit)
    assert all(s.moved <= limit for s in plan.steps)
    if old.fingerprint == new.fingerprint:
        assert len(plan) == 0
        return
    last = plan.view(len(plan) - 1)
    assert last.fingerprint == new.fingerprint
    assert last.to_json() == new.with_epoch(old.epoch + len(plan)).to_json()
    assert [s.epoch for s in plan.steps] == list(range(old.epoch + 1, old.epoch + len(plan) + 1))
    # A key that moves between the ends moves in at least one step.
    assert plan.total_moved >= plan.direct_moved - 1e-9


def test_plan_is_streamed() -> None:
    # An endless key stream: plan must hand out moves as it reads keys, never reading ahead.
    t = Transition(Placement(["a", "b"]), Placement(["a", "b", "c"]))
    read = 0

    def endless() -> Iterator[str]:
        nonlocal read
        for i in itertools.count():
            read += 1
            yield f"key-{i}"

    first = list(itertools.islice(t.plan(endless()), 10))
    assert len(first) == 10 and all(to == "c" for _, _, to in first)
    last_key = int(first[-1][0].split("-")[1])
    assert read == last_key + 1


def test_from_file_takes_the_paths_open_takes(tmp_path: Path) -> None:
    case = DATA["valid"][0]
    # On Linux a file name is bytes: b"\xff" is no UTF-8, and os.fsdecode gives it a surrogate escape.
    name = os.fsencode(tmp_path) + b"/view-\xff.json"
    with open(name, "wb") as f:
        f.write(document(case))
    for path in (name, os.fsdecode(name), Path(os.fsdecode(name)), bytearray(name)):
        if isinstance(path, bytearray):
            # open() refuses a bytearray path too: a path is str, bytes or os.PathLike.
            with pytest.raises(hrwhash.errors.InvalidArgumentError):
                View.from_file(path)  # type: ignore[arg-type]
            continue
        assert View.from_file(path, seed=seed(case)).fingerprint == case["fingerprint"]
    with pytest.raises(FileNotFoundError) as missing:
        View.from_file(name + b".missing")
    assert missing.value.filename == name + b".missing"
    # A NUL byte in a bytes path is the same OSError as in a str one.
    with pytest.raises(OSError) as nul:
        View.from_file(name + b"\0x")
    assert nul.value.errno == errno.EINVAL and type(nul.value) is OSError


def _moving_transition() -> Transition:
    # Every key moves from "a" to "b".
    return Transition(View(Placement(["a"]), 1), View(Placement(["b"]), 2))


def test_a_key_source_that_advances_its_own_plan_gets_a_typed_error() -> None:
    seen: List[str] = []

    def keys() -> Iterator[str]:
        yield "x"
        try:
            next(plan)
            seen.append("reentered")
        except ValueError as e:
            # Python's own error for a generator asked for its next item while it runs.
            seen.append(type(e).__name__)
        yield "y"

    plan = _moving_transition().plan(keys())
    assert [m[0] for m in plan] == ["x", "y"]
    assert seen == ["ValueError"]


class _LockedKeys:
    """A key source that threads may share: Python code under a lock, so the interpreter can hand
    the GIL to another thread while a plan is inside it."""

    def __init__(self, keys: List[str]) -> None:
        self._keys = iter(keys)
        self._lock = threading.Lock()

    def __iter__(self) -> "_LockedKeys":
        return self

    def __next__(self) -> str:
        with self._lock:
            return next(self._keys)


def test_a_plan_shared_by_threads_hands_out_every_key_once() -> None:
    keys = [f"k{i}" for i in range(20_000)]
    plan = _moving_transition().plan(_LockedKeys(keys))
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        _drain_from_threads(plan, keys)
    finally:
        sys.setswitchinterval(interval)


def _drain_from_threads(plan: Any, keys: List[str]) -> None:
    got: List[List[str]] = [[] for _ in range(16)]
    errors: List[BaseException] = []
    start = threading.Barrier(16)

    def drain(out: List[str]) -> None:
        start.wait()
        try:
            for key, old, new in plan:
                assert (old, new) == ("a", "b")
                out.append(key)
        except BaseException as e:  # noqa: BLE001 - every failure is reported below
            errors.append(e)

    threads = [threading.Thread(target=drain, args=(out,)) for out in got]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(k for out in got for k in out) == sorted(keys)


# A fresh interpreter loads a view of N nodes with 90-byte ids and prints how far the load raised
# its peak resident memory, over the document's size (Linux reports ru_maxrss in KiB).
LOAD_PEAK = """
import resource, sys
import hrwhash
n = int(sys.argv[1])
ids = ", ".join('{"id": "%s"}' % (f"cache-{i:09d}." + "x" * 74) for i in range(n))
doc = ('{"format": "hrwhash-view-v1", "algorithm": "hrw-v1", "epoch": "7", "seed": "default", '
       '"nodes": [' + ids + "]}").encode()
del ids
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
view = hrwhash.View.from_json(doc)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
assert len(view.placement) == n
print((after - before) * 1024 / len(doc))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in KiB on Linux only")
def test_a_loaded_views_placement_shares_the_views_nodes() -> None:
    # The Placement of a loaded view wraps the view's own core placement. Built again from its
    # ids, it held every id and table twice: 6.3 times the document at a million nodes against
    # 2.9 in C (issue 20; BENCHMARKS.md, "Loading a large view"). Peak memory, not time.
    out = subprocess.run(
        [sys.executable, "-c", LOAD_PEAK, "200000"], capture_output=True, text=True, check=True
    )
    growth = float(out.stdout)
    assert growth < 2.2, f"loading raised the peak by {growth:.2f} times the document"
