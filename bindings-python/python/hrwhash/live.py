"""Live views fed by a source, and their publishers (conformance/LIVE-VIEW.md).

A :class:`hrwhash.LiveView` holds the current view of a fleet; a source keeps it current:

    from hrwhash.live import EtcdSource

    source = EtcdSource("http://127.0.0.1:2379", "/fleet/cache")
    live = source.start()  # one full read, then a watch on a background thread
    owner = live.owner("user:42")
    ...
    source.stop()

Every source does the same: a full read first; then a watch or a poll; every document it reads is
parsed as a :class:`hrwhash.View` (with the seed given to the source) and offered to
``LiveView.update``. A document that does not parse, or that the live view refuses (an older epoch,
another seed, the same epoch with other members), is recorded in ``last_error()``, logged on the
``hrwhash.live`` logger and never applied. A lost connection keeps the last view, is recorded the
same way, and is retried with a backoff from 100 ms doubling to 5 s; every reconnection starts with
a full read, then a fresh watch from the revision after it, so no change is ever missed.

* :class:`FileSource` polls a file (publishers replace it by an atomic rename: :func:`publish_file`);
* :class:`EtcdSource` watches one key through etcd's v3 JSON gateway (etcd 3.4 or later), with only
  the standard library;
* :class:`HttpSource` polls a URL with ``If-None-Match``.

Epochs are assigned by one authority, the publisher: :func:`publish_etcd` writes a view with a
compare-and-swap on the key's revision, so two publishers never issue the same epoch, and advances
the epoch only when the membership changes. :func:`view_from_endpoint_slices` turns Kubernetes
EndpointSlices into a view for such a publisher.

Run as ``python3 -m hrwhash.live --etcd URL --key KEY --keys FILE`` (or ``--file PATH``), the module
is a follower that prints one JSON line per event (LIVE.md, "Follower protocol").
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import http.client
import json
import logging
import os
import re
import signal
import socket
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from . import _hrwhash
from .errors import (
    HrwError,
    InvalidArgumentError,
    InvalidJsonError,
    InvalidSeedLengthError,
    InvalidTextError,
    InvalidViewError,
    ResultTooLargeError,
    SourceError,
)
from ._hrwhash import Placement, ProfilePlacement, RampPlan, Transition, View

if TYPE_CHECKING:
    from ._hrwhash import LiveView

__all__ = [
    "EtcdSource",
    "FileSource",
    "HttpSource",
    "MAX_DOCUMENT_BYTES",
    "Published",
    "SourceEvent",
    "kind_of",
    "publish_etcd",
    "publish_file",
    "publish_ramp",
    "view_from_endpoint_slices",
]

log = logging.getLogger("hrwhash.live")

MAX_DOCUMENT_BYTES = 1 << 30
"""The longest view document a source reads (VIEW.md section 5, "Limits")."""

_Seed = Union[bytes, bytearray, memoryview]

# Every document a source reads is one of these outcomes; LIVE.md's follower prints them.
APPLIED = "applied"
UNCHANGED = "unchanged"
REFUSED = "refused"
SOURCE_ERROR = "source_error"


@dataclass(frozen=True)
class SourceEvent:
    """What a source did with one document, or a failure to read one.

    ``event`` is ``"applied"`` or ``"unchanged"`` (the live view took ``view``), ``"refused"`` (the
    document did not parse, or the live view refused it: ``error``) or ``"source_error"`` (no
    document could be read: ``error``, an :class:`OSError`). ``epoch`` is the epoch the document
    offered, when it names one.
    """

    event: str
    epoch: Optional[int] = None
    view: Optional[View] = None
    error: Optional[BaseException] = None


OnEvent = Callable[[SourceEvent], None]


def kind_of(error: BaseException) -> str:
    """The error kind of conformance/errors.json that ``error`` stands for: the class name of an
    :class:`hrwhash.HrwError` without its ``Error`` suffix (a :class:`SourceError`: the source's own
    kind); ``Io`` for an :class:`OSError`."""
    if isinstance(error, SourceError) and error.kind is not None:
        return error.kind
    if isinstance(error, HrwError):
        name = type(error).__name__
        return name[: -len("Error")] if name.endswith("Error") else name
    if isinstance(error, OSError):
        return "Io"
    return type(error).__name__


class _Backoff:
    """Retry delays: ``first`` seconds, doubling up to ``cap``; reset after a success."""

    def __init__(self, first: float, cap: float) -> None:
        self.first = first
        self.cap = cap
        self.next = first

    def delay(self) -> float:
        d = self.next
        self.next = min(self.next * 2, self.cap)
        return d

    def reset(self) -> None:
        self.next = self.first


def _seconds(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidArgumentError(f"{name} is {type(value).__name__}, not a number of seconds")
    if not value > 0 or value == float("inf"):
        raise InvalidArgumentError(f"{name} must be a finite number of seconds above 0, not {value!r}")
    return float(value)


def _text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise InvalidArgumentError(f"{name} is {type(value).__name__}, not str")
    return value


def _offered_epoch(data: bytes) -> Optional[int]:
    """The epoch a document names, when it names one in the form VIEW.md allows."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return None
    epoch = doc.get("epoch") if isinstance(doc, dict) else None
    if isinstance(epoch, str) and 0 < len(epoch) <= 20 and epoch.isascii() and epoch.isdigit():
        value = int(epoch)
        return value if value < 1 << 64 else None
    return None


_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _read_bounded(stream: Any, limit: int = MAX_DOCUMENT_BYTES) -> bytes:
    """Reads a document as VIEW.md's file loaders do: at most ``limit`` bytes
    (:class:`~hrwhash.errors.ResultTooLargeError` past it), stopping at the first control byte
    other than tab, line feed and carriage return, which no JSON text holds, so an endless stream
    such as /dev/zero fails at once as invalid JSON."""
    chunks: List[bytes] = []
    total = 0
    while True:
        chunk = stream.read(min(1 << 20, limit + 1 - total))
        if not chunk:
            break
        bad = _CONTROL.search(chunk)
        if bad is not None:
            chunks.append(chunk[: bad.start() + 1])
            break
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise ResultTooLargeError(f"a view document is at most {limit} bytes long")
    return b"".join(chunks)


class _Source:
    """What every source shares: the live view it feeds, the thread, the events and the backoff."""

    def __init__(
        self,
        *,
        seed: Optional[_Seed],
        on_event: Optional[OnEvent],
        backoff: Tuple[float, float],
    ) -> None:
        if seed is not None and not isinstance(seed, (bytes, bytearray, memoryview)):
            raise InvalidArgumentError(f"the seed is {type(seed).__name__}, not bytes")
        if seed is not None and len(bytes(seed)) != 16:
            raise InvalidSeedLengthError(
                f"a seed is 16 bytes long, not {len(bytes(seed))}", length=len(bytes(seed))
            )
        if on_event is not None and not callable(on_event):
            raise InvalidArgumentError(f"on_event is {type(on_event).__name__}, not callable")
        if not isinstance(backoff, tuple) or len(backoff) != 2:
            raise InvalidArgumentError("backoff is a pair (first delay, longest delay) in seconds")
        first = _seconds(backoff[0], "the first backoff delay")
        cap = _seconds(backoff[1], "the longest backoff delay")
        if cap < first:
            raise InvalidArgumentError("the longest backoff delay is below the first one")
        self._seed = None if seed is None else bytes(seed)
        self._on_event = on_event
        self._backoff = _Backoff(first, cap)
        self._live: Optional[LiveView] = None
        self._thread: Optional[threading.Thread] = None
        self._stopping = threading.Event()

    # -- the public surface ---------------------------------------------------------------------

    @property
    def live(self) -> Optional["LiveView"]:
        """The live view this source feeds, once :meth:`start` or :meth:`follow` ran."""
        return self._live

    def read(self) -> View:
        """One full read: the view the source holds now. Raises the parse error of a bad document
        and an :class:`OSError` when the source cannot be read."""
        raise NotImplementedError

    def start(self, **options: Any) -> "LiveView":
        """A full read, a :class:`hrwhash.LiveView` of its view (``options`` are the live view's,
        such as ``move_deadline``), then :meth:`follow` it. Raises what :meth:`read` raises."""
        live = _hrwhash.LiveView(self.read(), **options)
        self.follow(live)
        return live

    def follow(self, live: "LiveView") -> None:
        """Keeps ``live`` current from a background thread, from the last :meth:`read` on (a
        source that never read starts with a full read)."""
        if self._thread is not None:
            raise InvalidArgumentError("this source already follows a live view")
        if not isinstance(live, _hrwhash.LiveView):
            raise InvalidArgumentError(f"live is {type(live).__name__}, not hrwhash.LiveView")
        self._live = live
        self._thread = threading.Thread(target=self._run, name=f"hrwhash.live {self}", daemon=True)
        self._thread.start()

    def stop(self, timeout: Optional[float] = 10.0) -> None:
        """Stops the background thread (the live view keeps its last view) and waits for it."""
        self._stopping.set()
        self._interrupt()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def __enter__(self) -> "_Source":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- what sources implement -----------------------------------------------------------------

    def _run(self) -> None:
        raise NotImplementedError

    def _interrupt(self) -> None:
        """Wakes the thread out of a blocking read; polling sources wake on ``_stopping``."""

    # -- shared steps ---------------------------------------------------------------------------

    def _parse(self, data: bytes) -> View:
        return View.from_json(data, seed=self._seed)

    def _emit(self, event: SourceEvent) -> None:
        if self._on_event is not None:
            try:
                self._on_event(event)
            except Exception:  # an observer's bug must not stop the source
                log.exception("the on_event callback of %s raised", self)

    def _offer(self, data: bytes) -> None:
        """Parses one document read from the source and offers it to the live view."""
        live = self._live
        assert live is not None
        try:
            view = self._parse(data)
        except HrwError as e:
            # A document that does not parse never reaches the live view, which records only its
            # own refusals: the source records this one.
            live.report_error(e)
            self._refuse(e, _offered_epoch(data))
            return
        try:
            event = live.update(view)  # "applied" or "unchanged"
        except HrwError as e:
            self._refuse(e, view.epoch)
            return
        log.debug("%s: %s epoch %d (%s)", self, event, view.epoch, view.fingerprint)
        self._emit(SourceEvent(event, view.epoch, view))

    def _refuse(self, error: HrwError, epoch: Optional[int]) -> None:
        log.warning("%s: document refused, not applied: %s", self, error)
        self._emit(SourceEvent(REFUSED, epoch, None, error))

    def _source_error(self, error: OSError) -> None:
        if self._live is not None:
            self._live.report_error(error)
        log.warning("%s: %s; keeping the last view", self, error)
        self._emit(SourceEvent(SOURCE_ERROR, None, None, error))

    def _sleep(self, seconds: float) -> bool:
        """Waits, and says whether the source is to stop."""
        return self._stopping.wait(seconds)


class FileSource(_Source):
    """A view document in a file, polled every ``interval`` seconds (size, modification time and
    inode first, then the bytes). Publishers replace the file by an atomic rename
    (:func:`publish_file`), so a poll never reads half a document."""

    def __init__(
        self,
        path: Union[str, "os.PathLike[str]"],
        *,
        seed: Optional[_Seed] = None,
        interval: float = 1.0,
        on_event: Optional[OnEvent] = None,
        backoff: Tuple[float, float] = (0.1, 5.0),
    ) -> None:
        super().__init__(seed=seed, on_event=on_event, backoff=backoff)
        try:
            self._path = os.fspath(path)
        except TypeError:
            raise InvalidArgumentError(
                f"the path is {type(path).__name__}, not str or os.PathLike"
            ) from None
        self._interval = _seconds(interval, "the poll interval")
        self._stat: Optional[Tuple[int, int, int]] = None
        self._bytes: Optional[bytes] = None

    def __repr__(self) -> str:
        return f"FileSource({self._path!r})"

    def _load(self) -> Tuple[Tuple[int, int, int], bytes]:
        with open(self._path, "rb") as f:
            st = os.fstat(f.fileno())
            return (st.st_size, st.st_mtime_ns, st.st_ino), _read_bounded(f)

    def read(self) -> View:
        stat, data = self._load()
        view = self._parse(data)
        self._stat, self._bytes = stat, data
        return view

    def _run(self) -> None:
        failing = False
        while not self._stopping.is_set():
            try:
                st = os.stat(self._path)
                stat = (st.st_size, st.st_mtime_ns, st.st_ino)
                if stat != self._stat or failing:
                    stat, data = self._load()
                    self._stat = stat
                    if data != self._bytes or failing:
                        self._bytes = data
                        self._offer(data)
                failing = False
                self._backoff.reset()
                wait = self._interval
            except OSError as e:
                self._source_error(e)
                failing = True
                wait = self._backoff.delay()
            except HrwError as e:  # a document too long to read
                assert self._live is not None
                self._live.report_error(e)
                self._refuse(e, None)
                self._stat = None
                wait = self._interval
            except Exception as e:  # never let the thread die: report, retry
                log.exception("%s: unexpected error", self)
                self._source_error(OSError(f"unexpected error: {e!r}"))
                failing = True
                wait = self._backoff.delay()
            if self._sleep(wait):
                return


class HttpSource(_Source):
    """A view document at an HTTP(S) URL, polled every ``interval`` seconds with ``If-None-Match``
    (a ``304 Not Modified`` reads nothing). Any status but 200 and 304 is a source error."""

    def __init__(
        self,
        url: str,
        *,
        seed: Optional[_Seed] = None,
        interval: float = 1.0,
        timeout: float = 5.0,
        on_event: Optional[OnEvent] = None,
        backoff: Tuple[float, float] = (0.1, 5.0),
    ) -> None:
        super().__init__(seed=seed, on_event=on_event, backoff=backoff)
        self._url = _text(url, "the url")
        self._interval = _seconds(interval, "the poll interval")
        self._timeout = _seconds(timeout, "the timeout")
        self._etag: Optional[str] = None

    def __repr__(self) -> str:
        return f"HttpSource({self._url!r})"

    def _get(self, etag: Optional[str]) -> Optional[Tuple[Optional[str], bytes]]:
        """The ETag and body of the document, or None when it is the one tagged ``etag``."""
        request = urllib.request.Request(self._url)
        if etag is not None:
            request.add_header("If-None-Match", etag)
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                if response.status != 200:
                    raise urllib.error.HTTPError(
                        self._url, response.status, f"HTTP status {response.status}", response.headers, None
                    )
                return response.headers.get("ETag"), _read_bounded(response)
        except urllib.error.HTTPError as e:
            if e.code == 304:
                return None
            raise

    def read(self) -> View:
        got = self._get(None)
        assert got is not None
        etag, data = got
        view = self._parse(data)
        self._etag = etag
        return view

    def _run(self) -> None:
        while not self._sleep(self._interval):
            try:
                got = self._get(self._etag)
                self._backoff.reset()
            except OSError as e:
                self._source_error(e)
                if self._sleep(self._backoff.delay()):
                    return
                continue
            except HrwError as e:  # a document too long to read
                assert self._live is not None
                self._live.report_error(e)
                self._refuse(e, None)
                continue
            except Exception as e:  # never let the thread die: report, retry
                log.exception("%s: unexpected error", self)
                self._source_error(OSError(f"unexpected error: {e!r}"))
                if self._sleep(self._backoff.delay()):
                    return
                continue
            if got is not None:
                self._etag = got[0]
                self._offer(got[1])


class _WatchEnded(Exception):
    """The watch stream ended without an error: a compaction or a cancellation."""


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _etcd_key(key: Union[str, bytes]) -> bytes:
    if isinstance(key, str):
        try:
            key = key.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidTextError("the etcd key has no UTF-8 form (a lone surrogate)") from None
    if not isinstance(key, bytes):
        raise InvalidArgumentError(f"the key is {type(key).__name__}, not str or bytes")
    if not key:
        raise InvalidArgumentError("the etcd key is empty")
    return key


class _Etcd:
    """The calls of etcd's v3 JSON gateway this module makes, over the standard library."""

    def __init__(self, url: str, timeout: float) -> None:
        url = _text(url, "the etcd url")
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise InvalidArgumentError(f"the etcd url {url!r} is not http://host:port")
        self.url = url.rstrip("/")
        self.parts = parts
        self.timeout = timeout

    def call(self, path: str, body: Mapping[str, Any]) -> Dict[str, Any]:
        request = urllib.request.Request(
            self.url + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                answer = json.loads(response.read())
        except urllib.error.HTTPError as e:
            detail = e.read(4096).decode("utf-8", "replace")
            raise ConnectionError(f"etcd {path}: HTTP {e.code}: {detail}") from e
        except ValueError as e:  # the gateway answered with something other than JSON
            raise ConnectionError(f"etcd {path}: the answer is not JSON: {e}") from e
        if not isinstance(answer, dict):
            raise ConnectionError(f"etcd {path}: the answer is not a JSON object")
        return answer

    def range(self, key: bytes) -> Tuple[int, Optional[Dict[str, Any]]]:
        """The store's revision and the key's entry (None when absent)."""
        answer = self.call("/v3/kv/range", {"key": _b64(key)})
        try:
            revision = int(answer["header"]["revision"])
            kvs = answer.get("kvs") or []
            kv = kvs[0] if kvs else None
            if kv is not None and not isinstance(kv, dict):
                raise TypeError("an entry is not an object")
        except (KeyError, TypeError, ValueError, IndexError) as e:
            raise ConnectionError(f"etcd /v3/kv/range: an answer etcd does not give: {e!r}") from e
        return revision, kv

    def open_watch(self, key: bytes, start_revision: int) -> "http.client.HTTPConnection":
        """A connection whose response streams the key's events from ``start_revision`` on, one
        JSON object per line. Unlike urllib, http.client keeps the socket at hand, so another
        thread can shut it down to end a read that is waiting for the next event."""
        host = self.parts.hostname or ""
        cls = http.client.HTTPSConnection if self.parts.scheme == "https" else http.client.HTTPConnection
        conn = cls(host, self.parts.port, timeout=self.timeout)
        body = {"create_request": {"key": _b64(key), "start_revision": str(start_revision)}}
        conn.request(
            "POST",
            self.parts.path.rstrip("/") + "/v3/watch",
            body=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        return conn


def _value(kv: Mapping[str, Any]) -> bytes:
    try:
        return base64.b64decode(kv.get("value", ""), validate=True)
    except (ValueError, TypeError) as e:
        raise ConnectionError(f"etcd sent a value that is not base64: {e}") from e


class EtcdSource(_Source):
    """The view document stored at ``key`` in etcd, followed with a watch through etcd's v3 JSON
    gateway (``url`` is a client URL such as ``http://127.0.0.1:2379``).

    A compacted or cancelled watch, and any lost connection, is followed by a full read and a new
    watch from the revision after it. A deleted key is a source error (the last view stays).
    ``idle_timeout`` bounds how long a watch may stay silent before it is re-established (through
    a full read), which also notices a connection that died without closing."""

    def __init__(
        self,
        url: str,
        key: Union[str, bytes],
        *,
        seed: Optional[_Seed] = None,
        timeout: float = 5.0,
        idle_timeout: float = 60.0,
        on_event: Optional[OnEvent] = None,
        backoff: Tuple[float, float] = (0.1, 5.0),
    ) -> None:
        super().__init__(seed=seed, on_event=on_event, backoff=backoff)
        self._etcd = _Etcd(url, _seconds(timeout, "the timeout"))
        self._key = _etcd_key(key)
        self._idle = _seconds(idle_timeout, "the idle timeout")
        self._revision: Optional[int] = None
        # The watch's socket, which stop() shuts down to wake the thread out of a read.
        self._sock: Optional[socket.socket] = None
        self._sock_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"EtcdSource({self._etcd.url!r}, {self._key!r})"

    def _absent(self) -> OSError:
        return FileNotFoundError(f"etcd holds no key {self._key!r}")

    def read(self) -> View:
        revision, kv = self._etcd.range(self._key)
        if kv is None:
            raise self._absent()
        view = self._parse(_value(kv))
        self._revision = revision
        return view

    def _full_read(self) -> int:
        """Reads the key and offers its document; returns the revision to watch after."""
        revision, kv = self._etcd.range(self._key)
        if kv is None:
            self._source_error(self._absent())
        else:
            self._offer(_value(kv))
        return revision

    def _interrupt(self) -> None:
        with self._sock_lock:
            sock = self._sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _run(self) -> None:
        revision = self._revision
        while not self._stopping.is_set():
            try:
                if revision is None:
                    revision = self._full_read()
                self._backoff.reset()
                self._watch(revision + 1)
                # The watch was compacted, cancelled or silent for too long: re-read, re-watch.
                revision = None
                continue
            except OSError as e:
                if self._stopping.is_set():
                    return
                self._source_error(e)
            except (http.client.HTTPException, ValueError, TypeError, AttributeError, KeyError) as e:
                # A broken stream or an answer that is not what the gateway sends: as a lost
                # connection, a full read and a fresh watch after the backoff.
                if self._stopping.is_set():
                    return
                self._source_error(ConnectionError(f"etcd: {e!r}"))
            revision = None
            if self._sleep(self._backoff.delay()):
                return

    def _watch(self, start_revision: int) -> None:
        conn = self._etcd.open_watch(self._key, start_revision)
        sock = conn.sock
        with self._sock_lock:
            self._sock = sock
        try:
            # After publishing the socket: either stop() sees it, or this sees the flag.
            if self._stopping.is_set():
                return
            response = conn.getresponse()
            if response.status != 200:
                raise ConnectionError(f"etcd watch: HTTP {response.status}")
            if sock is not None:
                sock.settimeout(self._idle)
            while not self._stopping.is_set():
                try:
                    line = response.readline(64 << 20)
                except (socket.timeout, TimeoutError):
                    return  # silent for idle_timeout: a full read and a new watch
                if not line:
                    if self._stopping.is_set():
                        return
                    raise ConnectionError("etcd closed the watch stream")
                if not line.strip():
                    continue
                try:
                    message = json.loads(line)
                except ValueError as e:
                    raise ConnectionError(f"etcd watch sent a line that is not JSON: {e}") from e
                if not isinstance(message, dict):
                    raise ConnectionError("etcd watch sent a line that is not a JSON object")
                if "error" in message:
                    raise ConnectionError(f"etcd watch error: {message['error']}")
                result = message.get("result") or {}
                if result.get("canceled") or int(result.get("compact_revision", 0) or 0):
                    log.info("%s: watch ended (%s); reading in full", self, result)
                    return
                for event in result.get("events") or []:
                    kv = event.get("kv") or {}
                    if event.get("type") == "DELETE":
                        self._source_error(self._absent())
                    else:
                        self._offer(_value(kv))
        finally:
            with self._sock_lock:
                self._sock = None
            conn.close()


# -- publishing ---------------------------------------------------------------------------------


class Published(NamedTuple):
    """What a publish did: ``view`` is the view stored now (its epoch as stored); ``changed`` says
    whether this call wrote it (False: the stored view already had this membership)."""

    view: View
    changed: bool


_MAX_EPOCH = (1 << 64) - 1


def _next_epoch(stored: View, offered: View) -> int:
    if stored.epoch == _MAX_EPOCH:
        raise InvalidViewError(
            "the stored view is at the last epoch, 2^64 - 1: no later view can be published",
            field="epoch",
            reason="out_of_range",
        )
    return max(stored.epoch + 1, offered.epoch)


def _check_view(view: object) -> View:
    if not isinstance(view, View):
        raise InvalidArgumentError(f"the view is {type(view).__name__}, not hrwhash.View")
    return view


def publish_etcd(
    url: str,
    key: Union[str, bytes],
    view: View,
    *,
    timeout: float = 5.0,
    tries: int = 16,
) -> Published:
    """Publishes ``view`` at ``key`` in etcd with one authority over epochs.

    With no view stored, it is written at its own epoch (1 when that is 0) if the key still does
    not exist. With a view stored, nothing is written when its fingerprint equals ``view``'s;
    otherwise ``view`` is written at epoch ``max(stored + 1, view.epoch)``, only if the key was not
    modified since it was read (a compare-and-swap on its revision) — so two publishers never
    issue the same epoch. A lost compare re-reads and retries, ``tries`` times in all, then raises
    :class:`ConnectionError`. A stored document that is not a view of ``view``'s seed raises its
    parse error (:class:`~hrwhash.errors.SeedMismatchError`, ...) and is left as it is.
    """
    view = _check_view(view)
    etcd = _Etcd(url, _seconds(timeout, "the timeout"))
    name = _etcd_key(key)
    if isinstance(tries, bool) or not isinstance(tries, int) or tries < 1:
        raise InvalidArgumentError(f"tries must be an int >= 1, not {tries!r}")
    seed = view.placement.seed
    for _ in range(tries):
        _, kv = etcd.range(name)
        if kv is None:
            new = view if view.epoch > 0 else view.with_epoch(1)
            compare = {"key": _b64(name), "target": "CREATE", "create_revision": "0", "result": "EQUAL"}
        else:
            stored = View.from_json(_value(kv), seed=seed)
            if stored.fingerprint == view.fingerprint:
                return Published(stored, False)
            new = view.with_epoch(_next_epoch(stored, view))
            compare = {
                "key": _b64(name),
                "target": "MOD",
                "mod_revision": str(kv.get("mod_revision", "0")),
                "result": "EQUAL",
            }
        answer = etcd.call(
            "/v3/kv/txn",
            {
                "compare": [compare],
                "success": [{"request_put": {"key": _b64(name), "value": _b64(new.to_json().encode())}}],
            },
        )
        if answer.get("succeeded"):
            return Published(new, True)
        log.info("publish %r: another publisher wrote first; reading again", name)
    raise ConnectionError(f"publish {name!r}: the compare-and-swap lost {tries} times in a row")


def publish_file(path: Union[str, "os.PathLike[str]"], view: View) -> Published:
    """Publishes ``view`` in the file at ``path`` with the epoch rule of :func:`publish_etcd`
    (a single publisher: a file has no compare-and-swap), by writing a temporary file in the same
    directory, flushing it to disk and renaming it over ``path``, so a reader sees the old
    document or the new one, never a part of one."""
    view = _check_view(view)
    try:
        target = os.fspath(path)
    except TypeError:
        raise InvalidArgumentError(f"the path is {type(path).__name__}, not str or os.PathLike") from None
    if isinstance(target, bytes):
        target = os.fsdecode(target)
    try:
        with open(target, "rb") as f:
            stored: Optional[View] = View.from_json(_read_bounded(f), seed=view.placement.seed)
    except FileNotFoundError:
        stored = None
    if stored is None:
        new = view if view.epoch > 0 else view.with_epoch(1)
    elif stored.fingerprint == view.fingerprint:
        return Published(stored, False)
    else:
        new = view.with_epoch(_next_epoch(stored, view))
    directory = os.path.dirname(os.path.abspath(target))
    fd, temp = tempfile.mkstemp(prefix=".hrwhash-view-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(new.to_json().encode())
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, target)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    # The rename is durable once the directory is on disk too.
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
    return Published(new, True)


def publish_ramp(
    plan: RampPlan,
    publish: Callable[[View], Published],
    *,
    interval: float,
    stop: Optional[threading.Event] = None,
) -> List[Published]:
    """Publishes the views of ``plan``'s steps in order with ``publish`` (for instance
    ``lambda v: publish_etcd(url, key, v)``), waiting at least ``interval`` seconds between two
    steps so that the stores behind the fleet absorb each step's movement before the next
    (VIEW.md section 7). Returns what each publish did, one per step published; stops early, with
    the steps published so far, when ``stop`` is set. A publish that raises stops the ramp: its
    error propagates and the steps already published stay published."""
    if not isinstance(plan, RampPlan):
        raise InvalidArgumentError(f"plan is {type(plan).__name__}, not hrwhash.RampPlan")
    if not callable(publish):
        raise InvalidArgumentError(f"publish is {type(publish).__name__}, not callable")
    pause = _seconds(interval, "the interval")
    if stop is not None and not isinstance(stop, threading.Event):
        raise InvalidArgumentError(f"stop is {type(stop).__name__}, not threading.Event")
    done: List[Published] = []
    for i in range(len(plan)):
        if i > 0:
            if stop is not None:
                if stop.wait(pause):
                    break
            else:
                time.sleep(pause)
        elif stop is not None and stop.is_set():
            break
        published = publish(plan.view(i))
        if not isinstance(published, Published):
            raise InvalidArgumentError(
                f"publish returned {type(published).__name__}, not hrwhash.live.Published"
            )
        done.append(published)
    return done


# -- Kubernetes EndpointSlices ------------------------------------------------------------------

SERVICE_NAME_LABEL = "kubernetes.io/service-name"


def _slice_list(slices: object) -> List[Any]:
    if not isinstance(slices, (str, bytes, bytearray, memoryview, list, dict)):
        raise InvalidArgumentError(
            f"the EndpointSlices are {type(slices).__name__}, not JSON text, a list or a dict"
        )
    if isinstance(slices, (str, bytes, bytearray, memoryview)):
        data = bytes(slices) if not isinstance(slices, str) else slices.encode("utf-8", "surrogatepass")
        try:
            slices = json.loads(data)
        except ValueError as e:
            line = getattr(e, "lineno", None)
            column = getattr(e, "colno", None)
            raise InvalidJsonError(f"the EndpointSlice list is not JSON: {e}", line=line, column=column) from None
        except RecursionError:
            raise InvalidJsonError("the EndpointSlice list is nested too deeply") from None
    if isinstance(slices, dict):
        if "items" not in slices:
            raise InvalidViewError(
                "an EndpointSlice list is a JSON array or an object with items",
                field="items",
                reason="missing",
            )
        slices = slices["items"]
    if not isinstance(slices, list):
        raise InvalidViewError(
            "an EndpointSlice list is a JSON array or an object with items", field="items", reason="wrong_type"
        )
    for i, item in enumerate(slices):
        if not isinstance(item, dict):
            raise InvalidViewError("an EndpointSlice is a JSON object", field="items", index=i, reason="wrong_type")
    return slices


def _member(obj: Mapping[str, Any], name: str, kind: type, index: int) -> Any:
    """A member of an EndpointSlice object: None when absent or null, else of the JSON type
    Kubernetes gives it (LIVE-VIEW.md section 8.7), or InvalidViewError (``index``: the slice)."""
    value = obj.get(name)
    if value is None:
        return None
    if not isinstance(value, kind) or (kind in (int, float) and isinstance(value, bool)):
        raise InvalidViewError(
            f"EndpointSlice {index}: {name!r} is {type(value).__name__}, not {kind.__name__}",
            field=name,
            index=index,
            reason="wrong_type",
        )
    return value


def _items(value: Optional[List[Any]], kind: type, name: str, index: int) -> List[Any]:
    for item in value or []:
        if not isinstance(item, kind):
            raise InvalidViewError(
                f"EndpointSlice {index}: an element of {name!r} is not {kind.__name__}",
                field=name,
                index=index,
                reason="wrong_type",
            )
    return value or []


def view_from_endpoint_slices(
    slices: object,
    service: str,
    *,
    epoch: int,
    port: Optional[str] = None,
    weight: float = 1.0,
    seed: Optional[_Seed] = None,
) -> View:
    """The view of the endpoints of ``service`` in Kubernetes EndpointSlices (discovery.k8s.io/v1),
    as conformance/LIVE-VIEW.md section 8 says.

    ``slices`` is a list of EndpointSlice objects, or a ``{"items": [...]}`` list, as JSON text or
    parsed. Only slices labelled ``kubernetes.io/service-name: <service>`` count. Each endpoint is a
    node named by its first address (``address:port``, ``[address]:port`` for IPv6, with the port
    named ``port`` of its slice; a slice without that port is ignored); a ready endpoint
    (``conditions.ready`` true or absent) is a member of weight ``weight``; one that is not ready
    but serving and terminating is draining (weight 0); any other is left out. ``zone`` becomes
    the failure domain. An address found more than once is one node: ready wins over draining,
    then the first found.

    Text that is not JSON raises :class:`~hrwhash.errors.InvalidJsonError`; JSON of another shape,
    or a member of another JSON type than Kubernetes gives it,
    :class:`~hrwhash.errors.InvalidViewError` (``index``: the slice); no endpoint
    :class:`~hrwhash.errors.EmptyMembershipError`, only draining ones
    :class:`~hrwhash.errors.AllWeightsZeroError`.

    To follow a cluster, run this from a controller (an informer on the Service's EndpointSlices)
    on every change, and give its result to :func:`publish_etcd` or :func:`publish_file`, which
    issue a new epoch only when the membership changed.
    """
    service = _text(service, "the service")
    if port is not None:
        port = _text(port, "the port name")
    if isinstance(weight, bool) or not isinstance(weight, (int, float)):
        raise InvalidArgumentError(f"the weight is {type(weight).__name__}, not a number")
    if isinstance(epoch, bool) or not isinstance(epoch, int):
        raise InvalidArgumentError(f"the epoch is {type(epoch).__name__}, not int")
    ready_state, draining_state = 2, 1
    # id -> (state, zone): the first of the best state; dicts keep the order ids were found in.
    nodes: Dict[str, Tuple[int, Optional[str]]] = {}
    for i, item in enumerate(_slice_list(slices)):
        metadata = _member(item, "metadata", dict, i) or {}
        labels = _member(metadata, "labels", dict, i) or {}
        if _member(labels, SERVICE_NAME_LABEL, str, i) != service:
            continue
        number: Optional[int] = None
        if port is not None:
            for p in _items(_member(item, "ports", list, i), dict, "ports", i):
                if (_member(p, "name", str, i) or "") == port and _member(p, "port", int, i) is not None:
                    number = _member(p, "port", int, i)
                    if not 0 <= number <= 65535:
                        raise InvalidViewError(
                            f"EndpointSlice {i}: port {number} is not in 0 to 65535",
                            field="port",
                            index=i,
                            reason="out_of_range",
                        )
                    break
            if number is None:
                continue  # the slice does not serve this port
        ipv6 = _member(item, "addressType", str, i) == "IPv6"
        for endpoint in _items(_member(item, "endpoints", list, i), dict, "endpoints", i):
            addresses = _items(_member(endpoint, "addresses", list, i), str, "addresses", i)
            conditions = _member(endpoint, "conditions", dict, i) or {}
            ready = _member(conditions, "ready", bool, i)
            serving = _member(conditions, "serving", bool, i)
            terminating = _member(conditions, "terminating", bool, i)
            zone = _member(endpoint, "zone", str, i)
            if not addresses:
                continue
            if ready is None or ready:
                state = ready_state
            elif serving is True and terminating is True:
                state = draining_state
            else:
                continue
            node = addresses[0]
            if number is not None:
                node = f"[{node}]:{number}" if ipv6 else f"{node}:{number}"
            known = nodes.get(node)
            if known is None or known[0] < state:
                nodes[node] = (state, zone)
    ids = list(nodes)
    weights = [float(weight) if st == ready_state else 0.0 for st, _ in nodes.values()]
    zones = [z for _, z in nodes.values()]
    placement = Placement(ids, weights, seed=seed, domains=zones if any(z is not None for z in zones) else None)
    return View(placement, epoch)


# -- the follower -------------------------------------------------------------------------------


def _read_keys(path: str) -> List[bytes]:
    with open(path, "rb") as f:
        data = f.read()
    keys = data.split(b"\n")
    if keys and keys[-1] == b"":
        keys.pop()
    return keys


def _id_hex(node: Union[str, bytes]) -> str:
    return (node.encode("utf-8") if isinstance(node, str) else node).hex()


def owners_digest(placement: Union["Placement[Any]", "ProfilePlacement[Any]"], keys: Sequence[bytes]) -> str:
    """LIVE.md's owners digest: SHA-256 of the owner of every key, each id as hex, joined by
    line feeds."""
    return hashlib.sha256("\n".join(_id_hex(o) for o in placement.owners(keys)).encode()).hexdigest()


class _Printer:
    def __init__(self, out: Any) -> None:
        self._out = out
        self._lock = threading.Lock()

    def __call__(self, **fields: Any) -> None:
        fields["t_ns"] = time.time_ns()
        line = json.dumps(fields, separators=(",", ":")) + "\n"
        with self._lock:
            self._out.write(line)
            self._out.flush()


def _follow(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m hrwhash.live",
        description="Follow a live view and print one JSON line per event (LIVE.md).",
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--etcd", metavar="URL", help="etcd client URL, such as http://127.0.0.1:2379")
    where.add_argument("--file", metavar="PATH", help="a view document replaced by atomic renames")
    where.add_argument("--http", metavar="URL", help="a view document polled with ETags")
    parser.add_argument("--key", help="the etcd key holding the view document")
    parser.add_argument("--keys", required=True, metavar="FILE", help="keys to route, one per line")
    parser.add_argument("--seed-hex", metavar="HEX", help="the secret seed, 32 hex digits")
    parser.add_argument("--interval", type=float, default=1.0, help="poll interval of --file/--http")
    args = parser.parse_args(argv)
    if args.etcd is not None and args.key is None:
        parser.error("--etcd needs --key")
    seed = bytes.fromhex(args.seed_hex) if args.seed_hex else None
    keys = _read_keys(args.keys)
    emit = _Printer(sys.stdout)

    def on_event(event: SourceEvent) -> None:
        # Applied views are printed by the change callback, with their owners.
        if event.event == UNCHANGED:
            emit(event="unchanged", epoch=str(event.epoch))
        elif event.event == REFUSED:
            assert event.error is not None
            emit(event="refused", kind=kind_of(event.error), epoch=None if event.epoch is None else str(event.epoch))
        elif event.event == SOURCE_ERROR:
            assert event.error is not None
            emit(event="source_error", kind=kind_of(event.error), message=str(event.error))

    source: _Source
    if args.etcd is not None:
        source = EtcdSource(args.etcd, args.key, seed=seed, on_event=on_event)
    elif args.file is not None:
        source = FileSource(args.file, seed=seed, interval=args.interval, on_event=on_event)
    else:
        source = HttpSource(args.http, seed=seed, interval=args.interval, on_event=on_event)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())

    def wait_stdin() -> None:
        # os.read, not sys.stdin: a daemon thread blocked in a buffered read holds the buffer's
        # lock, and the interpreter aborts when it finds it held at exit.
        try:
            while os.read(sys.stdin.fileno(), 65536):
                pass
        except (OSError, ValueError):
            pass
        stop.set()

    threading.Thread(target=wait_stdin, name="stdin", daemon=True).start()

    # The first view: keep reading (with the sources' backoff) until one is there.
    backoff = _Backoff(0.1, 5.0)
    first: Optional[View] = None
    while first is None and not stop.is_set():
        try:
            first = source.read()
        except OSError as e:
            emit(event="source_error", kind=kind_of(e), message=str(e))
        except HrwError as e:
            emit(event="refused", kind=kind_of(e), epoch=None)
        if first is None:
            stop.wait(backoff.delay())
    if first is None:
        return 0

    live = _hrwhash.LiveView(first)

    def applied(transition: Transition) -> None:
        emit(
            event="applied",
            epoch=str(live.epoch),
            fingerprint=live.fingerprint,
            owners=owners_digest(transition.new_placement, keys),
        )

    emit(event="applied", epoch=str(first.epoch), fingerprint=first.fingerprint, owners=owners_digest(first.placement, keys))
    live.on_change(applied)
    source.follow(live)
    try:
        while not stop.wait(0.2):
            pass
    finally:
        source.stop()
    return 0


if __name__ == "__main__":
    sys.exit(_follow())
