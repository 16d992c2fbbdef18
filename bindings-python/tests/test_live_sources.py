"""The sources and publishers of hrwhash.live against a real etcd, files and an HTTP server:
publishes are seen, compare-and-swap races never issue an epoch twice, compacted watches and a
killed etcd recover through a full read, and stale or forged documents are refused, recorded and
never applied."""

from __future__ import annotations

import http.server
import json
import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import pytest

from etcd_server import Etcd, etcd  # noqa: F401  (the fixture)

import hrwhash
from hrwhash import LiveView, Placement, RampPlan, Transition, View
from hrwhash.errors import (
    InvalidArgumentError,
    InvalidJsonError,
    InvalidSeedLengthError,
    InvalidTextError,
    InvalidViewError,
    SeedMismatchError,
    StaleViewError,
    ViewConflictError,
)
from hrwhash.live import (
    EtcdSource,
    FileSource,
    HttpSource,
    Published,
    SourceEvent,
    publish_etcd,
    publish_file,
    publish_ramp,
)

KEY = b"/hrwhash/test/view"
SECRET = bytes(range(16))
FAST = (0.02, 0.2)  # backoff of the tests' sources: first delay, longest delay


def fleet(n: int, *, seed: Optional[bytes] = None, epoch: int = 1) -> View:
    return View(Placement([f"cache-{i}:11211" for i in range(n)], seed=seed), epoch)


def wait_for(condition: Callable[[], bool], timeout: float = 15.0, what: str = "a condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


class Events:
    """Every event a source reports, in order, from its thread."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.items: List[SourceEvent] = []

    def __call__(self, event: SourceEvent) -> None:
        with self.lock:
            self.items.append(event)

    def of(self, kind: str) -> List[SourceEvent]:
        with self.lock:
            return [e for e in self.items if e.event == kind]


# -- publishing to etcd ---------------------------------------------------------------------------


def test_publish_assigns_epochs_only_when_the_membership_changes(etcd: Etcd) -> None:
    first = publish_etcd(etcd.url, KEY, fleet(5, epoch=0))
    assert first.changed and first.view.epoch == 1  # absent key, epoch 0 offered: 1
    assert View.from_json(etcd.get(KEY) or b"") == first.view
    again = publish_etcd(etcd.url, KEY, fleet(5, epoch=7))
    assert again == Published(first.view, False)  # same fingerprint: nothing written
    six = publish_etcd(etcd.url, KEY, fleet(6, epoch=0))
    assert six.changed and six.view.epoch == 2  # stored + 1; the offered epoch is only a floor
    floor = publish_etcd(etcd.url, KEY, fleet(5, epoch=40))
    assert floor.changed and floor.view.epoch == 40
    back = publish_etcd(etcd.url, KEY, fleet(6, epoch=3))
    assert back.view.epoch == 41
    stored = View.from_json(etcd.get(KEY) or b"")
    assert stored.epoch == 41 and stored.fingerprint == fleet(6).fingerprint
    # A key created at a given epoch keeps it.
    assert publish_etcd(etcd.url, b"/other", fleet(3, epoch=9)).view.epoch == 9


def test_publish_refuses_to_replace_what_it_cannot_read(etcd: Etcd) -> None:
    etcd.put(KEY, b"not a view")
    with pytest.raises(InvalidJsonError):
        publish_etcd(etcd.url, KEY, fleet(5))
    etcd.put(KEY, fleet(5, seed=SECRET).to_json().encode())
    with pytest.raises(SeedMismatchError):
        publish_etcd(etcd.url, KEY, fleet(5))
    assert View.from_json(etcd.get(KEY) or b"", seed=SECRET) == fleet(5, seed=SECRET)
    etcd.put(KEY, fleet(5, epoch=(1 << 64) - 1).to_json().encode())
    with pytest.raises(InvalidViewError) as info:
        publish_etcd(etcd.url, KEY, fleet(6))
    assert info.value.field == "epoch" and info.value.reason == "out_of_range"


def test_publish_bad_arguments_are_typed_errors() -> None:
    with pytest.raises(InvalidArgumentError):
        publish_etcd("http://127.0.0.1:1", KEY, "not a view")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        publish_etcd("ftp://127.0.0.1:1", KEY, fleet(2))
    with pytest.raises(InvalidArgumentError):
        publish_etcd(b"http://x", KEY, fleet(2))  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        publish_etcd("http://127.0.0.1:1", b"", fleet(2))
    with pytest.raises(InvalidTextError):
        publish_etcd("http://127.0.0.1:1", "\udc80", fleet(2))
    with pytest.raises(InvalidArgumentError):
        publish_etcd("http://127.0.0.1:1", KEY, fleet(2), tries=0)
    with pytest.raises(InvalidArgumentError):
        publish_etcd("http://127.0.0.1:1", KEY, fleet(2), timeout=-1)


def test_publish_to_an_unreachable_etcd_is_an_os_error() -> None:
    from etcd_server import free_port

    with pytest.raises(OSError):
        publish_etcd(f"http://127.0.0.1:{free_port()}", KEY, fleet(2), timeout=2)


def test_a_publisher_that_loses_the_compare_reads_again(etcd: Etcd, monkeypatch: pytest.MonkeyPatch) -> None:
    """Between publisher A's read and its write, B publishes: A's compare fails, and A writes at
    the epoch after B's instead of issuing B's epoch a second time."""
    publish_etcd(etcd.url, KEY, fleet(5))
    from hrwhash import live as live_module

    real_range = live_module._Etcd.range
    calls = {"n": 0}

    def racing_range(self: Any, key: bytes) -> Any:
        answer = real_range(self, key)
        calls["n"] += 1
        if calls["n"] == 1:
            assert publish_etcd(etcd.url, KEY, fleet(7)).view.epoch == 2  # B, between A's read and write
        return answer

    monkeypatch.setattr(live_module._Etcd, "range", racing_range)
    got = publish_etcd(etcd.url, KEY, fleet(6))
    assert calls["n"] >= 3  # A's read, B's own read, A's second read
    assert got.view.epoch == 3 and got.changed
    # A lost compare that keeps losing ends in an error, not in a write.
    def outdated_range(self: Any, key: bytes) -> Any:
        revision, kv = real_range(self, key)
        assert kv is not None
        return revision, {**kv, "mod_revision": "1"}  # as if another publisher always wrote first

    monkeypatch.setattr(live_module._Etcd, "range", outdated_range)
    with pytest.raises(ConnectionError):
        publish_etcd(etcd.url, KEY, fleet(8), tries=3)
    assert View.from_json(etcd.get(KEY) or b"").epoch == 3


def test_two_publishers_racing_never_issue_one_epoch_twice(etcd: Etcd, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="hrwhash.live")
    rounds = 40
    issued: Dict[str, List[int]] = {"a": [], "b": []}
    errors: List[BaseException] = []
    start = threading.Barrier(2)

    def publisher(name: str, sizes: List[int]) -> None:
        try:
            start.wait()
            for n in sizes:
                got = publish_etcd(etcd.url, KEY, fleet(n), tries=64)
                if got.changed:
                    issued[name].append(got.view.epoch)
        except BaseException as e:  # reported below
            errors.append(e)

    # a publishes 2 nodes, 3 nodes, ...; b 20 nodes, 21, ...: every publish is a new membership.
    threads = [
        threading.Thread(target=publisher, args=("a", list(range(2, 2 + rounds)))),
        threading.Thread(target=publisher, args=("b", list(range(100, 100 + rounds)))),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    everything = issued["a"] + issued["b"]
    assert len(everything) == 2 * rounds  # every membership was new, so every publish wrote
    assert len(set(everything)) == len(everything), "an epoch was issued twice"
    assert sorted(everything) == list(range(1, 2 * rounds + 1))  # each write is the one after the last
    assert issued["a"] == sorted(issued["a"]) and issued["b"] == sorted(issued["b"])
    assert View.from_json(etcd.get(KEY) or b"").epoch == 2 * rounds
    lost = sum("another publisher wrote first" in r.getMessage() for r in caplog.records)
    print(f"CAS race: {2 * rounds} publishes, {lost} lost compares retried, epochs 1..{2 * rounds} each once")


# -- following etcd -------------------------------------------------------------------------------


def test_a_watch_sees_every_publish(etcd: Etcd) -> None:
    publish_etcd(etcd.url, KEY, fleet(5))
    events = Events()
    source = EtcdSource(etcd.url, KEY, on_event=events, backoff=FAST)
    live = source.start()
    changes: List[Tuple[int, int]] = []
    applied_at: List[int] = []

    def changed(t: Transition) -> None:
        changes.append((len(t.old_placement), len(t.new_placement)))
        applied_at.append(time.monotonic_ns())

    live.on_change(changed)
    lags: List[float] = []
    try:
        assert live.epoch == 1 and live.fingerprint == fleet(5).fingerprint
        for step, n in enumerate([6, 5, 6, 5] * 5, start=2):
            started = time.monotonic_ns()
            assert publish_etcd(etcd.url, KEY, fleet(n)).view.epoch == step
            # on_change runs after the live view took the view: wait for its record too.
            wait_for(lambda: live.epoch == step and len(changes) == step - 1, what=f"epoch {step}")
            lags.append((applied_at[-1] - started) / 1e6)
            assert live.fingerprint == fleet(n).fingerprint
            assert live.owner("user:42") == fleet(n).placement.owner("user:42")
        assert changes == [(5, 6), (6, 5)] * 10
        # The source reports an event after the live view took the view: wait for the last one.
        wait_for(lambda: len(events.of("applied")) == 20, what="the last applied event")
        assert [e.epoch for e in events.of("applied")] == list(range(2, 22))
        lags.sort()
        print(f"publish -> applied: p50 {lags[len(lags) // 2]:.1f} ms, max {lags[-1]:.1f} ms over {len(lags)}")
        # A put of the same document is a confirmation, not a change.
        etcd.put(KEY, fleet(5, epoch=21).to_json().encode())
        wait_for(lambda: len(events.of("unchanged")) == 1, what="the unchanged event")
        assert events.of("refused") == [] and events.of("source_error") == []
        assert live.last_error() is None
    finally:
        source.stop()


def test_a_compacted_watch_recovers_with_a_full_read(etcd: Etcd, caplog: pytest.LogCaptureFixture) -> None:
    publish_etcd(etcd.url, KEY, fleet(5))
    events = Events()
    source = EtcdSource(etcd.url, KEY, on_event=events, backoff=FAST)
    first = source.read()  # the revision to watch after is this read's
    for n in (6, 7, 8):
        publish_etcd(etcd.url, KEY, fleet(n))
    etcd.compact()  # the revisions after the read are gone: a watch from there is cancelled
    live = LiveView(first)
    caplog.set_level(logging.INFO, logger="hrwhash.live")
    source.follow(live)
    try:
        wait_for(lambda: live.epoch == 4, what="epoch 4 after the compaction")
        assert live.fingerprint == fleet(8).fingerprint
        assert any("compact_revision" in r.getMessage() for r in caplog.records)
        # Epochs 2 and 3 were compacted away: the full read jumps to 4, once. The source reports
        # the event after the live view took the view, so wait for the event too.
        wait_for(lambda: len(events.of("applied")) >= 1, what="the applied event")
        assert [e.epoch for e in events.of("applied")] == [4]
        publish_etcd(etcd.url, KEY, fleet(5))
        wait_for(lambda: live.epoch == 5, what="epoch 5 on the fresh watch")
        assert events.of("source_error") == []
    finally:
        source.stop()


def test_a_killed_etcd_keeps_the_last_view_reports_and_resumes(etcd: Etcd) -> None:
    publish_etcd(etcd.url, KEY, fleet(5))
    events = Events()
    source = EtcdSource(etcd.url, KEY, on_event=events, backoff=FAST, timeout=1)
    live = source.start()
    try:
        publish_etcd(etcd.url, KEY, fleet(6))
        wait_for(lambda: live.epoch == 2)
        etcd.kill()
        wait_for(lambda: len(events.of("source_error")) >= 3, what="source errors while etcd is down")
        error = live.last_error()
        assert isinstance(error, OSError)
        assert hrwhash.live.kind_of(error) == "Io"
        assert live.epoch == 2 and live.fingerprint == fleet(6).fingerprint
        assert live.owner("k") == fleet(6).placement.owner("k")
        etcd.start()  # same ports, same data
        publish_etcd(etcd.url, KEY, fleet(5))
        wait_for(lambda: live.epoch == 3, what="the publish after the restart")
        assert live.last_error() is None  # cleared by the applied update
        assert events.of("refused") == []
        # The retries backed off: far fewer errors than the 10 ms polls of this test.
        assert len(events.of("source_error")) < 200
    finally:
        source.stop()


def forged(etcd: Etcd) -> List[Tuple[bytes, type, Optional[int]]]:
    """(document, error it is refused with, epoch it offers) after the live view reached epoch 3
    with six nodes."""
    return [
        (fleet(5, epoch=2).to_json().encode(), StaleViewError, 2),
        (fleet(7, epoch=3).to_json().encode(), ViewConflictError, 3),
        (fleet(6, seed=SECRET, epoch=9).to_json().encode(), SeedMismatchError, 9),
        (b'{"format": "hrwhash-view-v1", "epoch": "12"', InvalidJsonError, None),
        (b'{"format": "hrwhash-view-v1", "epoch": "12", "nodes": []}', InvalidViewError, 12),
    ]


def test_stale_and_forged_documents_are_refused_and_never_applied(etcd: Etcd) -> None:
    for n in (5, 7, 6):
        publish_etcd(etcd.url, KEY, fleet(n))
    events = Events()
    source = EtcdSource(etcd.url, KEY, on_event=events, backoff=FAST)
    live = source.start()
    applied: List[Transition] = []
    live.on_change(applied.append)
    try:
        assert live.epoch == 3
        for i, (document, error, epoch) in enumerate(forged(etcd), start=1):
            etcd.put(KEY, document)
            wait_for(lambda: len(events.of("refused")) == i, what=f"refusal {i}")
            refusal = events.of("refused")[-1]
            assert isinstance(refusal.error, error) and refusal.epoch == epoch
            assert isinstance(live.last_error(), error)
            assert live.epoch == 3 and live.fingerprint == fleet(6).fingerprint
        assert applied == [] and events.of("applied") == []
        # The publisher refuses to build on a forged document it cannot read either.
        with pytest.raises(InvalidViewError):
            publish_etcd(etcd.url, KEY, fleet(6))
        etcd.put(KEY, fleet(4, epoch=4).to_json().encode())
        wait_for(lambda: live.epoch == 4)
        assert live.last_error() is None and len(applied) == 1
    finally:
        source.stop()


def test_a_deleted_key_is_a_source_error_and_the_view_stays(etcd: Etcd) -> None:
    publish_etcd(etcd.url, KEY, fleet(5))
    events = Events()
    source = EtcdSource(etcd.url, KEY, on_event=events, backoff=FAST)
    live = source.start()
    try:
        etcd.call("/v3/kv/deleterange", {"key": __import__("etcd_server").b64(KEY)})
        wait_for(lambda: len(events.of("source_error")) == 1)
        assert isinstance(live.last_error(), FileNotFoundError) and live.epoch == 1
        publish_etcd(etcd.url, KEY, fleet(6, epoch=2))
        wait_for(lambda: live.epoch == 2)
    finally:
        source.stop()


def test_etcd_source_bad_arguments_and_absent_key(etcd: Etcd) -> None:
    with pytest.raises(FileNotFoundError):
        EtcdSource(etcd.url, KEY).start()
    with pytest.raises(InvalidArgumentError):
        EtcdSource(etcd.url, 3)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        EtcdSource("127.0.0.1:2379", KEY)
    with pytest.raises(InvalidArgumentError):
        EtcdSource(etcd.url, KEY, seed="0" * 16)  # type: ignore[arg-type]
    with pytest.raises(InvalidSeedLengthError):
        EtcdSource(etcd.url, KEY, seed=b"short")
    with pytest.raises(InvalidArgumentError):
        EtcdSource(etcd.url, KEY, backoff=(1.0, 0.5))
    with pytest.raises(InvalidArgumentError):
        EtcdSource(etcd.url, KEY, idle_timeout=float("nan"))
    with pytest.raises(InvalidArgumentError):
        EtcdSource(etcd.url, KEY, on_event=3)  # type: ignore[arg-type]
    publish_etcd(etcd.url, KEY, fleet(2))
    source = EtcdSource(etcd.url, KEY)
    live = source.start()
    try:
        with pytest.raises(InvalidArgumentError):
            source.follow(live)  # already following
        with pytest.raises(InvalidArgumentError):
            EtcdSource(etcd.url, KEY).follow("live")  # type: ignore[arg-type]
    finally:
        source.stop()


def test_a_secret_seeded_view_is_followed_with_its_seed(etcd: Etcd) -> None:
    publish_etcd(etcd.url, KEY, fleet(5, seed=SECRET))
    with pytest.raises(SeedMismatchError):
        EtcdSource(etcd.url, KEY).read()
    source = EtcdSource(etcd.url, KEY, seed=SECRET, backoff=FAST)
    live = source.start()
    try:
        publish_etcd(etcd.url, KEY, fleet(6, seed=SECRET))
        wait_for(lambda: live.epoch == 2)
        assert live.owner("k") == fleet(6, seed=SECRET).placement.owner("k")
    finally:
        source.stop()


def test_stop_ends_a_watch_that_waits_for_events(etcd: Etcd) -> None:
    publish_etcd(etcd.url, KEY, fleet(5))
    source = EtcdSource(etcd.url, KEY, idle_timeout=3600)
    source.start()
    time.sleep(0.2)  # the thread is in its watch, waiting
    source.stop(timeout=5)
    thread = source._thread
    assert thread is not None and not thread.is_alive()


# -- files ----------------------------------------------------------------------------------------


def test_file_source_follows_atomic_renames(tmp_path: Path) -> None:
    path = tmp_path / "view.json"
    assert publish_file(path, fleet(5, epoch=0)).view.epoch == 1
    assert publish_file(path, fleet(5, epoch=0)) == Published(fleet(5), False)
    events = Events()
    source = FileSource(path, interval=0.01, on_event=events, backoff=FAST)
    live = source.start()
    try:
        for step, n in enumerate([6, 5, 6], start=2):
            assert publish_file(path, fleet(n)).view.epoch == step
            wait_for(lambda: live.epoch == step, what=f"epoch {step}")
        wait_for(lambda: len(events.of("applied")) == 3, what="the last applied event")
        assert [e.epoch for e in events.of("applied")] == [2, 3, 4]
        assert [p.name for p in tmp_path.iterdir()] == ["view.json"]  # no temporary file left
        # Stale and forged documents written in place are refused, never applied.
        for i, (document, error, epoch) in enumerate(forged_file(), start=1):
            temp = tmp_path / "next"
            temp.write_bytes(document)
            os.replace(temp, path)
            wait_for(lambda: len(events.of("refused")) == i, what=f"refusal {i}")
            assert isinstance(live.last_error(), error) and events.of("refused")[-1].epoch == epoch
            assert live.epoch == 4 and live.fingerprint == fleet(6).fingerprint
        # A missing file is a source error; the view stays, and the next document is read.
        path.unlink()
        wait_for(lambda: len(events.of("source_error")) >= 1)
        assert isinstance(live.last_error(), FileNotFoundError) and live.epoch == 4
        publish_file(path, fleet(3, epoch=5))
        wait_for(lambda: live.epoch == 5)
        assert live.last_error() is None
    finally:
        source.stop()


def forged_file() -> List[Tuple[bytes, type, Optional[int]]]:
    return [
        (fleet(5, epoch=3).to_json().encode(), StaleViewError, 3),
        (fleet(9, epoch=4).to_json().encode(), ViewConflictError, 4),
        (fleet(6, seed=SECRET, epoch=8).to_json().encode(), SeedMismatchError, 8),
        (b"\x00", InvalidJsonError, None),
    ]


def test_a_partial_write_in_place_is_refused_but_the_complete_one_applies(tmp_path: Path) -> None:
    path = tmp_path / "view.json"
    publish_file(path, fleet(5))
    source = FileSource(path, interval=0.01, backoff=FAST)
    live = source.start()
    try:
        document = fleet(6, epoch=2).to_json().encode()
        path.write_bytes(document[: len(document) // 2])  # what a writer without a rename risks
        wait_for(lambda: isinstance(live.last_error(), InvalidJsonError))
        assert live.epoch == 1
        path.write_bytes(document)
        wait_for(lambda: live.epoch == 2)
    finally:
        source.stop()


def test_publish_file_epochs_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "v.json"
    assert publish_file(str(path), fleet(4, epoch=6)).view.epoch == 6
    assert publish_file(path, fleet(5, epoch=2)).view.epoch == 7
    assert View.from_file(path) == fleet(5, epoch=7)
    path.write_text("garbage")
    with pytest.raises(InvalidJsonError):
        publish_file(path, fleet(5))
    with pytest.raises(InvalidArgumentError):
        publish_file(3, fleet(5))  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        publish_file(path, None)  # type: ignore[arg-type]
    with pytest.raises(OSError):
        publish_file(tmp_path / "missing-dir" / "v.json", fleet(5))
    with pytest.raises(InvalidArgumentError):
        FileSource(path, interval=0)
    with pytest.raises(InvalidArgumentError):
        FileSource(None)  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError):
        FileSource(tmp_path / "absent").start()


def test_publish_ramp_publishes_every_step_in_order_with_the_interval(etcd: Etcd, tmp_path: Path) -> None:
    old, new = fleet(5, epoch=1), fleet(6, epoch=2)
    plan = RampPlan(old, new, 0.05)
    assert len(plan) >= 4
    publish_etcd(etcd.url, KEY, old)
    source = EtcdSource(etcd.url, KEY, backoff=FAST)
    live = source.start()
    seen: List[int] = []
    live.on_change(lambda t: seen.append(live.epoch))
    try:
        began = time.monotonic()
        done = publish_ramp(plan, lambda v: publish_etcd(etcd.url, KEY, v), interval=0.05)
        took = time.monotonic() - began
        assert [p.changed for p in done] == [True] * len(plan)
        assert [p.view.fingerprint for p in done] == [v.fingerprint for v in plan.views()]
        epochs = [p.view.epoch for p in done]
        assert epochs == list(range(2, 2 + len(plan)))
        # At least the interval between two steps.
        assert took >= 0.05 * (len(plan) - 1)
        wait_for(lambda: live.epoch == epochs[-1], what="the last step")
        assert seen == sorted(seen) and seen[-1] == epochs[-1]
        assert live.fingerprint == new.fingerprint
    finally:
        source.stop()
    # To a file, stopped early by the event: only the first step is published.
    path = tmp_path / "ramp.json"
    stop = threading.Event()

    def publish_then_stop(v: View) -> Published:
        stop.set()
        return publish_file(path, v)

    done = publish_ramp(plan, publish_then_stop, interval=10.0, stop=stop)
    assert len(done) == 1 and View.from_file(path).fingerprint == plan.view(0).fingerprint


def test_publish_ramp_bad_arguments_are_typed_errors(tmp_path: Path) -> None:
    plan = RampPlan(fleet(5), fleet(6, epoch=2), 0.1)
    ok = lambda v: publish_file(tmp_path / "v.json", v)  # noqa: E731
    with pytest.raises(InvalidArgumentError):
        publish_ramp([fleet(5)], ok, interval=1.0)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        publish_ramp(plan, None, interval=1.0)  # type: ignore[arg-type]
    for bad in (0, -1.0, float("nan"), float("inf"), "1", True):
        with pytest.raises(InvalidArgumentError):
            publish_ramp(plan, ok, interval=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        publish_ramp(plan, ok, interval=0.01, stop=True)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        publish_ramp(plan, lambda v: None, interval=0.01)  # type: ignore[arg-type, return-value]
    assert not (tmp_path / "v.json").exists()


# -- HTTP -----------------------------------------------------------------------------------------


class ViewServer(http.server.ThreadingHTTPServer):
    document = b""
    conditional = 0  # requests that came with If-None-Match and got 304
    full = 0


class ViewHandler(http.server.BaseHTTPRequestHandler):
    server: ViewServer

    def do_GET(self) -> None:
        body = self.server.document if self.path == "/view" else b""
        etag = '"%d-%s"' % (len(body), hash(body) & 0xFFFF)
        if self.headers.get("If-None-Match") == etag:
            self.server.conditional += 1
            self.send_response(304)
            self.end_headers()
            return
        self.server.full += 1
        if not body:
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("ETag", etag)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def view_server() -> Iterator[ViewServer]:
    server = ViewServer(("127.0.0.1", 0), ViewHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_http_source_polls_with_etags(view_server: ViewServer) -> None:
    view_server.document = fleet(5).to_json().encode()
    url = f"http://127.0.0.1:{view_server.server_address[1]}/view"
    events = Events()
    source = HttpSource(url, interval=0.01, on_event=events, backoff=FAST)
    live = source.start()
    try:
        wait_for(lambda: view_server.conditional >= 5, what="conditional polls")
        assert view_server.full == 1 and events.items == []  # a 304 reads no document
        view_server.document = fleet(6, epoch=2).to_json().encode()
        wait_for(lambda: live.epoch == 2)
        view_server.document = fleet(4, epoch=1).to_json().encode()
        wait_for(lambda: isinstance(live.last_error(), StaleViewError))
        view_server.document = b""  # 404: a source error
        wait_for(lambda: len(events.of("source_error")) >= 1)
        assert isinstance(live.last_error(), OSError) and live.epoch == 2
        view_server.document = fleet(3, epoch=3).to_json().encode()
        wait_for(lambda: live.epoch == 3)
    finally:
        source.stop()
    with pytest.raises(OSError):
        HttpSource(url + "-gone").start()  # a 404 on the first read
    with pytest.raises(InvalidArgumentError):
        HttpSource(url, timeout=0)


# -- the follower command -------------------------------------------------------------------------


class Follower:
    """`python3 -m hrwhash.live` as a separate process, its JSON lines collected by a thread."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hrwhash.live", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: List[Dict[str, Any]] = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            with self.lock:
                self.lines.append(json.loads(raw))

    def events(self, kind: str) -> List[Dict[str, Any]]:
        with self.lock:
            return [e for e in self.lines if e["event"] == kind]

    def close(self) -> Tuple[int, bytes]:
        assert self.proc.stdin is not None
        self.proc.stdin.close()  # the follower runs until stdin closes
        code = self.proc.wait(timeout=20)
        self.thread.join(timeout=5)
        assert self.proc.stderr is not None
        return code, self.proc.stderr.read()


def owners_digest(v: View, keys: List[bytes]) -> str:
    import hashlib

    ids = [o.encode() if isinstance(o, str) else o for o in v.placement.owners(keys)]
    return hashlib.sha256("\n".join(i.hex() for i in ids).encode()).hexdigest()


def test_the_follower_command_prints_the_protocol(etcd: Etcd, tmp_path: Path) -> None:
    keys = [f"user:{i}".encode() for i in range(500)] + ["clé-é".encode()]
    keys_file = tmp_path / "keys"
    keys_file.write_bytes(b"\n".join(keys) + b"\n")  # a final empty line is no key
    publish_etcd(etcd.url, KEY, fleet(5))
    follower = Follower("--etcd", etcd.url, "--key", KEY.decode(), "--keys", str(keys_file))
    try:
        wait_for(lambda: len(follower.events("applied")) == 1, what="the first view")
        published = [fleet(5)]
        for n in (6, 5):
            published.append(publish_etcd(etcd.url, KEY, fleet(n)).view)
            wait_for(lambda: len(follower.events("applied")) == len(published))
        etcd.put(KEY, fleet(9, epoch=2).to_json().encode())  # stale
        wait_for(lambda: len(follower.events("refused")) == 1)
        etcd.put(KEY, fleet(5, epoch=3).to_json().encode())  # the same document again
        wait_for(lambda: len(follower.events("unchanged")) == 1)
        etcd.kill()
        wait_for(lambda: len(follower.events("source_error")) >= 2)
        etcd.start()
        published.append(publish_etcd(etcd.url, KEY, fleet(6)).view)
        wait_for(lambda: len(follower.events("applied")) == len(published), what="the publish after the restart")
    finally:
        code, stderr = follower.close()
    assert code == 0, stderr.decode()
    applied = follower.events("applied")
    assert [e["epoch"] for e in applied] == [str(v.epoch) for v in published] == ["1", "2", "3", "4"]
    for event, v in zip(applied, published):
        assert event["fingerprint"] == v.fingerprint
        assert event["owners"] == owners_digest(v, keys)
        assert isinstance(event["t_ns"], int) and event["t_ns"] > 0
    assert follower.events("refused")[0]["kind"] == "StaleView"
    assert follower.events("refused")[0]["epoch"] == "2"
    assert follower.events("unchanged")[0]["epoch"] == "3"
    assert {e["kind"] for e in follower.events("source_error")} == {"Io"}
    assert all(e["message"] for e in follower.events("source_error"))
    times = [e["t_ns"] for e in follower.lines]
    assert times == sorted(times)


def test_the_follower_command_follows_a_file_and_stops_on_sigterm(tmp_path: Path) -> None:
    keys_file = tmp_path / "keys"
    keys_file.write_bytes(b"a\nb\nc")
    path = tmp_path / "view.json"
    follower = Follower("--file", str(path), "--interval", "0.02", "--keys", str(keys_file))
    try:
        wait_for(lambda: len(follower.events("source_error")) >= 1, what="the missing file reported")
        publish_file(path, fleet(4))
        wait_for(lambda: len(follower.events("applied")) == 1)
        publish_file(path, fleet(3))
        wait_for(lambda: len(follower.events("applied")) == 2)
        follower.proc.terminate()
        assert follower.proc.wait(timeout=20) == 0
    finally:
        if follower.proc.poll() is None:
            follower.proc.kill()
    assert [e["owners"] for e in follower.events("applied")] == [
        owners_digest(fleet(n), [b"a", b"b", b"c"]) for n in (4, 3)
    ]
    assert follower.events("source_error")[0]["kind"] == "Io"
