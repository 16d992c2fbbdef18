"""A real etcd (Debian's etcd-server) on loopback for the live view tests: free ports, a temporary
data directory, and kill/restart on the same ports and data."""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from typing import Any, Dict, Iterator, List, Optional

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Etcd:
    def __init__(self) -> None:
        binary = shutil.which("etcd") or "/usr/bin/etcd"
        if not os.path.exists(binary):
            raise RuntimeError("etcd is not installed (apt-get install etcd-server)")
        self.binary = binary
        self.data = tempfile.mkdtemp(prefix="hrwhash-etcd-")
        self.client_port = free_port()
        self.peer_port = free_port()
        self.url = f"http://127.0.0.1:{self.client_port}"
        self.proc: Optional["subprocess.Popen[bytes]"] = None
        self.log = open(os.path.join(self.data, "etcd.log"), "ab")
        self.start()

    def start(self) -> None:
        peer = f"http://127.0.0.1:{self.peer_port}"
        self.proc = subprocess.Popen(
            [
                self.binary,
                "--name", "hrwhash-test",
                "--data-dir", os.path.join(self.data, "member"),
                "--listen-client-urls", self.url,
                "--advertise-client-urls", self.url,
                "--listen-peer-urls", peer,
                "--initial-advertise-peer-urls", peer,
                "--initial-cluster", f"hrwhash-test={peer}",
                "--log-level", "warn",
            ],
            stdout=self.log,
            stderr=self.log,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                with open(os.path.join(self.data, "etcd.log"), "rb") as f:
                    raise RuntimeError(f"etcd exited: {f.read()[-2000:].decode(errors='replace')}")
            try:
                self.call("/v3/kv/range", {"key": b64(b"\0")})
                return
            except OSError:
                time.sleep(0.1)
        self.proc.kill()
        raise RuntimeError(f"etcd did not answer on {self.url}")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.kill()
        self.log.close()
        shutil.rmtree(self.data, ignore_errors=True)

    def call(self, path: str, body: Dict[str, Any]) -> Dict[str, Any]:
        request = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), method="POST")
        with urllib.request.urlopen(request, timeout=5) as response:
            answer: Dict[str, Any] = json.loads(response.read())
            return answer

    def put(self, key: bytes, value: bytes) -> int:
        answer = self.call("/v3/kv/put", {"key": b64(key), "value": b64(value)})
        return int(answer["header"]["revision"])

    def get(self, key: bytes) -> Optional[bytes]:
        kvs: List[Dict[str, Any]] = self.call("/v3/kv/range", {"key": b64(key)}).get("kvs") or []
        return base64.b64decode(kvs[0]["value"]) if kvs else None

    def compact(self) -> int:
        revision = int(self.call("/v3/kv/range", {"key": b64(b"\0")})["header"]["revision"])
        self.call("/v3/kv/compaction", {"revision": str(revision), "physical": True})
        return revision


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def start_or_skip() -> Etcd:
    try:
        return Etcd()
    except (OSError, RuntimeError) as e:
        if os.environ.get("CI") == "true":
            pytest.fail(f"cannot start etcd: {e}")
        pytest.skip(f"cannot start etcd (apt-get install etcd-server, or set CI=true to make this fail): {e}")


@pytest.fixture
def etcd() -> Iterator[Etcd]:
    server = start_or_skip()
    try:
        yield server
    finally:
        server.close()
