"""hrwhash.LiveView: every holder rule of conformance/LIVE-VIEW.md through the binding, change
callbacks with Transition objects, callbacks that raise, and readers on other threads during
updates."""

from __future__ import annotations

import gc
import json
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

from hrwhash import HrwError, LiveRoute, LiveView, Placement, Transition, View
from hrwhash.live import kind_of
from hrwhash.errors import (
    InvalidArgumentError,
    InvalidJsonError,
    SeedMismatchError,
    StaleViewError,
    ViewConflictError,
)

KEYS = [f"key-{i}" for i in range(2000)]
SECRET = b"0123456789abcdef"


def view(ids: List[str], epoch: int, *, seed: Optional[bytes] = None) -> View:
    return View(Placement(ids, seed=seed), epoch)


ABC = ["a", "b", "c"]
ABCD = ["a", "b", "c", "d"]


def test_starts_with_its_view_and_no_move() -> None:
    v = view(ABC, 5)
    live = LiveView(v)
    assert live.epoch == 5 and live.fingerprint == v.fingerprint
    assert not live.moving and live.last_error() is None and live.move_deadline is None
    assert live.finish_move() is False
    assert live.current() == v
    assert live.snapshot() == (v, None, False)
    for k in KEYS[:200]:
        owner = v.placement.owner(k)
        assert live.owner(k) == owner
        r = live.route(k)
        assert isinstance(r, LiveRoute) and r == live.route(k)
        assert (r.read, r.write, r.moved) == (owner, owner, False)
    assert live.owners(KEYS) == v.placement.owners(KEYS)


def test_another_seed_is_refused_before_the_epoch() -> None:
    live = LiveView(view(ABC, 5))
    for epoch in (1, 5, 6):  # stale, same and newer: the seed is checked first
        with pytest.raises(SeedMismatchError):
            live.update(view(ABC, epoch, seed=SECRET))
        assert isinstance(live.last_error(), SeedMismatchError)
        assert live.epoch == 5 and not live.moving


def test_a_lower_epoch_is_stale() -> None:
    v = view(ABC, 5)
    live = LiveView(v)
    with pytest.raises(StaleViewError) as info:
        live.update(view(ABCD, 4))
    assert (info.value.epoch, info.value.current) == (4, 5)
    assert isinstance(info.value, ValueError)
    last = live.last_error()
    assert isinstance(last, StaleViewError) and (last.epoch, last.current) == (4, 5)
    assert live.fingerprint == v.fingerprint and not live.moving
    with pytest.raises(StaleViewError):
        live.update(v.with_epoch(0))  # the same membership at a lower epoch is stale too


def test_the_same_epoch_with_another_membership_is_a_conflict() -> None:
    v = view(ABC, 5)
    live = LiveView(v)
    with pytest.raises(ViewConflictError) as info:
        live.update(view(["a", "c"], 5))
    assert info.value.epoch == 5
    assert live.fingerprint == v.fingerprint
    assert isinstance(live.last_error(), ViewConflictError)


def test_the_same_epoch_and_fingerprint_is_unchanged_and_confirms() -> None:
    live = LiveView(view(["b", "a"], 5))
    error = ConnectionRefusedError("etcd is down")
    live.report_error(error)
    assert live.last_error() is error
    time.sleep(0.05)
    before = live.since_update()
    assert before >= 0.05
    assert live.update(view(["a", "b"], 5)) == "unchanged"  # node order is not in the fingerprint
    assert live.since_update() < before
    assert live.last_error() is None and not live.moving


def test_a_higher_epoch_is_applied_and_moves_until_finished() -> None:
    old, new = view(ABC, 1), view(ABCD, 2)
    live = LiveView(old)
    live.report_error(InvalidJsonError("bad", line=1, column=1))
    assert live.update(new) == "applied"
    assert live.last_error() is None and live.epoch == 2 and live.moving
    assert live.snapshot() == (new, old, True)
    moved = 0
    for k in KEYS:
        o, n = old.placement.owner(k), new.placement.owner(k)
        r = live.route(k)
        assert (r.read, r.write, r.moved) == (o, n, o != n)
        assert live.owner(k) == n
        moved += r.moved
    # About a quarter of the keys move to the new node; none elsewhere.
    assert 300 < moved < 700
    assert live.finish_move() is True
    assert not live.moving and live.finish_move() is False
    assert live.snapshot() == (new, None, False)
    assert all(not live.route(k).moved for k in KEYS)


def test_a_higher_epoch_with_the_same_membership_moves_nothing() -> None:
    v = view(ABC, 1)
    live = LiveView(v)
    assert live.update(v.with_epoch(9)) == "applied"
    assert live.epoch == 9 and live.moving
    assert all(not live.route(k).moved for k in KEYS)


def test_an_update_during_a_move_replaces_it() -> None:
    v1, v2, v3 = view(["a", "b"], 1), view(ABC, 2), view(["b", "c", "d"], 3)
    live = LiveView(v1)
    live.update(v2)
    live.update(v3)
    current, previous, moving = live.snapshot()
    assert moving and previous == v2 and current == v3
    for k in KEYS[:500]:
        r = live.route(k)
        assert (r.read, r.write) == (v2.placement.owner(k), v3.placement.owner(k))


def test_a_move_deadline_ends_the_move() -> None:
    # A deadline of a second, as the core's test has: a loaded machine can pause this thread for
    # tens of milliseconds between the update and the first check.
    live = LiveView(view(["a", "b"], 1), move_deadline=1.0)
    assert live.move_deadline == pytest.approx(1.0)
    start = time.monotonic()
    live.update(view(ABC, 2))
    assert live.moving
    time.sleep(max(0.0, start + 1.1 - time.monotonic()))
    assert not live.moving
    assert all(not live.route(k).moved for k in KEYS[:300])
    assert live.finish_move() is False


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf"), "1", True])
def test_a_bad_move_deadline_is_an_argument_error(bad: Any) -> None:
    with pytest.raises(InvalidArgumentError):
        LiveView(view(ABC, 1), move_deadline=bad)


def test_bad_arguments_are_typed_errors() -> None:
    live = LiveView(view(ABC, 1))
    with pytest.raises(InvalidArgumentError):
        LiveView(Placement(ABC))  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        live.update(Placement(ABC))  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        live.owner(3)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        live.route(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        live.on_change(3)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        live.report_error("down")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        LiveView(view(ABC, 1), deadline=1)  # type: ignore[call-arg]
    assert live.epoch == 1 and live.last_error() is None


def test_callbacks_get_a_transition_after_the_swap() -> None:
    v1, v2 = view(ABC, 1), view(ABCD, 2)
    live = LiveView(v1)
    seen: List[Tuple[int, Transition, Any]] = []

    def changed(t: Transition) -> None:
        # Lookups already answer from the new view.
        seen.append((live.epoch, t, live.owner("user:42")))

    live.on_change(changed)
    assert live.update(v2) == "applied"
    assert len(seen) == 1
    epoch, t, owner = seen[0]
    assert epoch == 2 and owner == v2.placement.owner("user:42")
    assert isinstance(t, Transition)
    assert t.old_placement == v1.placement and t.new_placement == v2.placement
    plan = list(t.plan(KEYS))
    assert plan == [(k, v1.placement.owner(k), v2.placement.owner(k)) for k in KEYS if live.route(k).moved]
    # Refusals and confirmations call nothing.
    with pytest.raises(StaleViewError):
        live.update(v1)
    live.update(v2)
    assert len(seen) == 1


def test_a_callback_that_raises_does_not_poison_the_live_view() -> None:
    v1, v2 = view(ABC, 1), view(ABCD, 2)
    live = LiveView(v1)
    calls: List[int] = []
    boom = RuntimeError("boom")

    def failing(t: Transition) -> None:
        raise boom

    live.on_change(failing)
    live.on_change(lambda t: calls.append(live.epoch))
    assert live.update(v2) == "applied"  # the update itself succeeded
    assert calls == [2]  # the next callback still ran
    assert live.last_error() is boom
    assert live.update(v2) == "unchanged" and live.last_error() is None
    assert live.update(v1.with_epoch(3)) == "applied"
    assert calls == [2, 3] and live.last_error() is boom


def test_a_callback_may_finish_the_move_but_not_update() -> None:
    live = LiveView(view(["a"], 1))
    errors: List[BaseException] = []

    def changed(t: Transition) -> None:
        live.finish_move()
        try:
            live.update(view(["a", "b", "c"], 9))
        except InvalidArgumentError as e:  # would wait for this callback: refused, not a hang
            errors.append(e)
        try:
            live.on_change(print)
        except InvalidArgumentError as e:
            errors.append(e)

    live.on_change(changed)
    live.update(view(["a", "b"], 2))
    assert not live.moving and live.epoch == 2
    assert len(errors) == 2


def test_ids_come_back_as_the_views_name_them() -> None:
    v1 = View(Placement([b"a", b"b"]), 1)
    v2 = View(Placement([b"a", b"b", b"c"]), 2)
    live = LiveView(v1)
    assert isinstance(live.owner("k"), bytes)
    live.update(v2)
    r = live.route("k")
    assert isinstance(r.read, bytes) and isinstance(r.write, bytes)
    loaded = View.from_json(View(Placement(["a", "b", "c", "d"]), 3).to_json())
    live.update(loaded)
    assert isinstance(live.owner("k"), str)


def test_a_live_view_and_its_callbacks_are_collected() -> None:
    live = LiveView(view(ABC, 1))
    live.on_change(lambda t: None)
    del live
    gc.collect()


def test_readers_on_other_threads_never_see_a_half_swapped_state() -> None:
    # Epoch e has the nodes n0 .. n(e % 4 + 1): owners tell the epochs apart.
    views = [View(Placement([f"n{i}" for i in range(e % 4 + 2)]), e) for e in range(1, 301)]
    live = LiveView(views[0])
    done = threading.Event()
    failures: List[str] = []
    checked = [0, 0, 0]

    def reader(r: int) -> None:
        last = 0
        i = 0
        while not done.is_set():
            current, previous, moving = live.snapshot()
            e = current.epoch
            if e < last:
                failures.append(f"epoch went back {last} -> {e}")
            last = e
            expected = views[e - 1]
            if current.fingerprint != expected.fingerprint:
                failures.append(f"epoch {e} with another fingerprint")
            key = f"k{r}-{i}"
            if previous is not None and previous.epoch != e - 1:
                failures.append(f"previous {previous.epoch} of {e}")
            # One call, one state: the route's write owner is the current one of some epoch >= e.
            route = live.route(key)
            if not any(route.write == views[j].placement.owner(key) for j in range(e - 1, len(views))):
                failures.append(f"route of {key} from no later epoch")
            if route.moved != (route.read != route.write):
                failures.append("moved disagrees with the owners")
            owners = live.owners([key, key + "x"])
            if len(owners) != 2:
                failures.append("owners")
            checked[r] += 1
            i += 1

    threads = [threading.Thread(target=reader, args=(r,)) for r in range(3)]
    for t in threads:
        t.start()
    for v in views[1:]:
        assert live.update(v) == "applied"
        if v.epoch % 3 == 0:
            live.finish_move()
    # Every reader reads at least once after the last update, however loaded the machine.
    after = list(checked)
    deadline = time.monotonic() + 60
    while any(c <= a for c, a in zip(checked, after)) and time.monotonic() < deadline:
        time.sleep(0.01)
    done.set()
    for t in threads:
        t.join()
    assert failures == []
    assert all(c > a for c, a in zip(checked, after))
    assert live.epoch == 300


def test_updates_from_several_threads_are_serialized() -> None:
    views = [View(Placement([f"n{i}" for i in range(e % 5 + 2)]), e) for e in range(1, 201)]
    live = LiveView(views[0])
    transitions: List[Tuple[int, int]] = []
    live.on_change(lambda t: transitions.append((len(t.old_placement), len(t.new_placement))))
    outcomes: List[str] = []
    refused: List[BaseException] = []

    def writer(part: List[View]) -> None:
        for v in part:
            try:
                outcomes.append(live.update(v))
            except StaleViewError as e:
                refused.append(e)

    threads = [threading.Thread(target=writer, args=(views[1 + r :: 2],)) for r in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert live.epoch == 200
    assert outcomes.count("applied") + len(refused) == 199
    assert len(transitions) == outcomes.count("applied")


# -- conformance/live-view.json ---------------------------------------------------------------

CASES_PATH = Path(__file__).resolve().parents[2] / "conformance" / "live-view.json"
CASES: Dict[str, Any] = json.loads(CASES_PATH.read_text())
STEP_KEYS = {"update", "seed", "expect", "finish_move", "returns", "report_error", "state"}


def state_of(live: LiveView, keys: List[str]) -> Dict[str, Any]:
    error = live.last_error()
    return {
        "epoch": str(live.epoch),
        "fingerprint": live.fingerprint,
        "moving": live.moving,
        "last_error": None if error is None else kind_of(error),
        "routes": [[r.read, r.write, r.moved] for r in map(live.route, keys)],
    }


@pytest.mark.parametrize("case", CASES["cases"], ids=[c["name"] for c in CASES["cases"]])
def test_conformance_case(case: Dict[str, Any]) -> None:
    assert CASES["version"] == "hrwhash-live-view-v1"
    assert set(case) <= {"name", "initial", "seed", "steps"}
    keys: List[str] = CASES["keys"]
    case_seed = bytes.fromhex(case["seed"]) if "seed" in case else None
    live = LiveView(View.from_json(case["initial"], seed=case_seed))
    for n, step in enumerate(case["steps"]):
        assert set(step) <= STEP_KEYS, set(step) - STEP_KEYS
        if "update" in step:
            seed = bytes.fromhex(step["seed"]) if "seed" in step else case_seed
            expect = step["expect"]
            try:
                # As a source does: a document that does not load is recorded, never offered.
                try:
                    offered = View.from_json(step["update"], seed=seed)
                except HrwError as e:
                    live.report_error(e)
                    raise
                got: Any = live.update(offered)
            except HrwError as e:
                got = {"error": kind_of(e)}
                for field in ("epoch", "current"):
                    if field in expect:
                        got[field] = str(getattr(e, field))
            assert got == expect, f"step {n}"
        elif "finish_move" in step:
            assert live.finish_move() is step["returns"], f"step {n}"
        else:
            kind = step["report_error"]
            live.report_error(OSError("connection refused") if kind == "Io" else RuntimeError(kind))
        assert state_of(live, keys) == step["state"], f"step {n}"
