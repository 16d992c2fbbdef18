#!/usr/bin/env python3
"""The multi-process proof of live views (LIVE.md, "Follower protocol"): a real etcd and a real
memcached on loopback, followers in separate processes (the CLI's `hrwhash view watch`, and the Go,
Python and Node followers where this tree has them), one publisher (`hrwhash view publish`) taking the
fleet 5 -> 6 -> 5 nodes and through a weight ramp, etcd killed and restarted mid-run, the history
compacted, and stale and forged documents written straight to the key.

Checks: every follower's epochs only increase; at every epoch all followers report the same
owners digest (and the published fingerprint); no follower applies a view that was not published;
each forgery is refused with its kind by every follower; every follower reports the lost etcd and
follows again after it returns; with transition routing, a store that copies the moved keys in the
change callback loses no read. Prints the publish -> last follower lag (p50/p99) and the figures.

Usage: followers.py HRWHASH_BINARY [--keys N]. Standard library only. Under CI=true a server that
cannot start, or a follower whose code is in the tree but does not run, fails the run.
"""

import argparse
import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CI = os.environ.get("CI") == "true"
KEY = "/hrwhash/views/cache"
SECRET = "00112233445566778899aabbccddeeff"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


WORKDIR = None


def fail(message):
    print(f"followers: FAILED: {message}", flush=True)
    if WORKDIR:
        print(f"followers: logs and follower stderr in {WORKDIR}", flush=True)
    raise SystemExit(1)


class Etcd:
    def __init__(self, workdir):
        self.dir = os.path.join(workdir, "etcd")
        self.client = free_port()
        self.peer = free_port()
        self.proc = None
        self.endpoint = f"http://127.0.0.1:{self.client}"

    def start(self):
        if shutil.which("etcd") is None:
            raise RuntimeError("no etcd binary (Debian package etcd-server)")
        peer = f"http://127.0.0.1:{self.peer}"
        log = open(os.path.join(os.path.dirname(self.dir), "etcd.log"), "ab")
        self.proc = subprocess.Popen(
            ["etcd", "--name", "default", "--data-dir", self.dir,
             "--listen-client-urls", self.endpoint, "--advertise-client-urls", self.endpoint,
             "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
             "--initial-cluster", f"default={peer}"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                self.call("/v3/kv/range", {"key": b64(b"/ready")})
                return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"etcd exited with {self.proc.returncode}")
                time.sleep(0.05)
        raise RuntimeError("etcd did not answer within 20 s")

    def kill(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def call(self, path, body):
        request = urllib.request.Request(self.endpoint + path, data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as r:
            return json.loads(r.read())

    def put_raw(self, key, value):
        return self.call("/v3/kv/put", {"key": b64(key.encode()), "value": b64(value)})

    def get(self, key):
        reply = self.call("/v3/kv/range", {"key": b64(key.encode())})
        kvs = reply.get("kvs") or []
        value = base64.b64decode(kvs[0].get("value", "")) if kvs else None
        return value, int(reply["header"]["revision"])


def b64(data):
    return base64.b64encode(data).decode()


class Memcached:
    def __init__(self):
        self.port = free_port()
        self.proc = None

    def start(self):
        binary = shutil.which("memcached")
        if binary is None:
            raise RuntimeError("no memcached binary (Debian package memcached)")
        args = [binary, "-l", "127.0.0.1", "-p", str(self.port), "-U", "0", "-m", "64", "-t", "2"]
        if os.geteuid() == 0:
            args += ["-u", "root"]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"memcached exited with {self.proc.returncode}")
                time.sleep(0.05)
        raise RuntimeError("memcached did not listen within 10 s")

    def stop(self):
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait()


class Follower:
    """One follower process and the JSON lines it printed."""

    def __init__(self, name, language, argv, cwd, logdir):
        self.name, self.language = name, language
        self.events = []
        self.lock = threading.Lock()
        self.stderr = open(os.path.join(logdir, f"{name}.stderr"), "wb")
        self.proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").strip()
            if not line:
                continue
            try:
                event = json.loads(line)
            except ValueError:
                event = {"event": "garbage", "line": line}
            event["received_ns"] = time.time_ns()
            with self.lock:
                self.events.append(event)

    def seen(self, predicate):
        with self.lock:
            return [e for e in self.events if predicate(e)]

    def applied(self):
        return self.seen(lambda e: e.get("event") == "applied")

    def epoch(self):
        a = self.applied()
        return int(a[-1]["epoch"]) if a else None

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            code = self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = "killed after 20 s"
        self.reader.join(timeout=5)
        return code


def wait_for(what, condition, timeout=20.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():
            return
        time.sleep(0.01)
    fail(f"timed out after {timeout:.0f} s waiting for {what}")


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, **kw)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} exited {r.returncode}: {r.stderr.decode(errors='replace')}")
    return r.stdout.decode()


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("hrwhash")
    parser.add_argument("--keys", type=int, default=2000)
    parser.add_argument("--cli-followers", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    hrwhash = os.path.abspath(args.hrwhash)
    global WORKDIR
    work = WORKDIR = tempfile.mkdtemp(prefix="hrwhash-followers-")
    started = time.time()
    etcd, memcached, followers = Etcd(work), Memcached(), []
    try:
        for server in (etcd, memcached):
            try:
                server.start()
            except RuntimeError as e:
                if CI:
                    fail(f"{type(server).__name__.lower()} could not start under CI=true: {e}")
                print(f"followers: SKIPPED (not under CI): {e}")
                return 0
        summary = drive(hrwhash, args, work, etcd, memcached, followers)
    finally:
        for f in followers:
            if f.proc.poll() is None:
                f.proc.kill()
        etcd.kill()
        memcached.stop()
    print(f"followers: wall time {time.time() - started:.1f} s")
    shutil.rmtree(work, ignore_errors=True)
    print(summary)
    return 0


def follower_commands(hrwhash, keys_file, etcd, memcached_port, cli_count):
    """(name, language, argv, cwd, present, why-absent) of every follower this tree can run."""
    common = ["--etcd", etcd.endpoint, "--key", KEY, "--keys", keys_file]
    out = []
    for i in range(cli_count):
        out.append((f"cli-{i + 1}", "cli", [hrwhash, "view", "watch", *common], ROOT, True, ""))
    out.append(("cli-store", "cli",
                [hrwhash, "view", "watch", *common, "--store", f"memcached://127.0.0.1:{memcached_port}"],
                ROOT, True, ""))
    # HRWHASH_GO_DIR: another tree's go/ (to try its follower before it is merged).
    go_dir = os.environ.get("HRWHASH_GO_DIR") or os.path.join(ROOT, "go")
    go_cmd = os.path.join(go_dir, "cmd", "hrwhash-follow")
    out.append(("go", "go", ["go", "run", "./cmd/hrwhash-follow", *common], go_dir,
                os.path.isdir(go_cmd) and shutil.which("go") is not None,
                "go/cmd/hrwhash-follow is not in this tree" if not os.path.isdir(go_cmd) else "no go toolchain"))
    py_module = os.path.join(ROOT, "bindings-python", "python", "hrwhash", "live.py")
    venv_python = os.path.join(ROOT, "bindings-python", ".venv", "bin", "python")
    py_ok = os.path.isfile(py_module) and os.path.isfile(venv_python) and subprocess.run(
        [venv_python, "-c", "import hrwhash.live"], capture_output=True).returncode == 0
    why = ("bindings-python/python/hrwhash/live.py is not in this tree" if not os.path.isfile(py_module)
           else "bindings-python/.venv has no hrwhash with hrwhash.live (run make test-py first)")
    out.append(("python", "python", [venv_python, "-m", "hrwhash.live", *common], ROOT, py_ok, why))
    node_script = os.path.join(ROOT, "bindings-node", "scripts", "follow.js")
    node_ok = os.path.isfile(node_script) and shutil.which("node") is not None and subprocess.run(
        ["node", "-e", "require(process.argv[1])", os.path.join(ROOT, "bindings-node", "main.js")],
        capture_output=True).returncode == 0
    why = ("bindings-node/scripts/follow.js is not in this tree" if not os.path.isfile(node_script)
           else "bindings-node has no built addon (run make test-node first)")
    out.append(("node", "node", ["node", node_script, *common], ROOT, node_ok, why))
    # Code that exists but cannot run is a failure under CI.
    for name, _, _, _, present, why in out:
        if not present and CI and (
            (name == "go" and os.path.isdir(go_cmd)) or (name == "python" and os.path.isfile(py_module))
                or (name == "node" and os.path.isfile(node_script))):
            fail(f"the {name} follower is in the tree but cannot run: {why}")
    return out


def drive(hrwhash, args, work, etcd, memcached, followers):
    keys_file = os.path.join(work, "keys.txt")
    with open(keys_file, "w") as f:
        f.write("".join(f"user:{i}\n" for i in range(args.keys)))
    nodes = [f"10.0.0.{i}:11211" for i in range(1, 7)]

    def node_file(name, ids, weights=None):
        path = os.path.join(work, name)
        with open(path, "w") as f:
            json.dump([{"id": n, "weight": (weights or {}).get(n, 1)} for n in ids], f)
        return path

    five, six = node_file("five.json", nodes[:5]), node_file("six.json", nodes)
    heavy = node_file("heavy.json", nodes[:5], {nodes[0]: 3})
    published = {}  # epoch -> (fingerprint, t_ns of the publish)

    def publish(*paths, interval="200ms"):
        out = run([hrwhash, "view", "publish", "--etcd", etcd.endpoint, "--key", KEY,
                   "--interval", interval, "--json", *paths])
        last = None
        for line in out.splitlines():
            step = json.loads(line)
            epoch = int(step["epoch"])
            if step["written"]:
                if epoch in published:
                    fail(f"epoch {epoch} published twice")
                published[epoch] = (step["fingerprint"], step["t_ns"])
            last = epoch
        return last

    def all_at(epoch, what):
        wait_for(f"every follower at epoch {epoch} ({what})",
                 lambda: all((f.epoch() or 0) >= epoch for f in followers))

    epoch = publish(five)
    commands = follower_commands(hrwhash, keys_file, etcd, memcached.port, args.cli_followers)
    ran, absent = [], []
    for name, language, argv, cwd, present, why in commands:
        if present:
            followers.append(Follower(name, language, argv, cwd, work))
            ran.append(name)
        else:
            absent.append(f"{name} ({why})")
    languages = sorted({f.language for f in followers})
    print(f"followers: running {', '.join(ran)}; languages: {', '.join(languages)}", flush=True)
    if absent:
        print(f"followers: not run: {'; '.join(absent)}", flush=True)
    # `go run` compiles first.
    wait_for("every follower's first view", lambda: all(f.applied() for f in followers), timeout=120)

    # The fleet 5 -> 6 -> 5 (a few rounds, for the lag figures), then a weight ramp step by step
    # and back.
    for _ in range(args.rounds):
        all_at(publish(six), "5 -> 6 nodes")
        all_at(publish(five), "6 -> 5 nodes")
    ramp_steps = 0
    for name, start, end in (("up", five, heavy), ("down", heavy, five)):
        ramp_dir = os.path.join(work, f"ramp-{name}")
        run([hrwhash, "ramp", "--from", start, "--to", end, "--max-move", "4%", "--out", ramp_dir, "-q"])
        ramp_last = publish(ramp_dir, interval="100ms")
        all_at(ramp_last, f"weight ramp {name}")
        ramp_steps += len([p for p in os.listdir(ramp_dir) if p.startswith("step-")])

    # etcd killed: followers keep their view and report; then it returns.
    faults = 0
    killed_ns = time.time_ns()
    etcd.kill()
    wait_for("every follower to report the lost etcd",
             lambda: all(f.seen(lambda e: e.get("event") == "source_error" and e.get("kind") == "Io"
                                and e["t_ns"] >= killed_ns) for f in followers))
    time.sleep(0.5)
    for f in followers:
        if f.proc.poll() is not None:
            fail(f"{f.name} exited while etcd was down")
        if f.epoch() != ramp_last:
            fail(f"{f.name} left its view while etcd was down: epoch {f.epoch()}")
    etcd.start()
    faults += 1
    # Followers are in backoff (up to 5 s) when etcd returns: this epoch's lag is the recovery.
    recovery_epoch = publish(six)
    all_at(recovery_epoch, "after etcd's restart")

    # History compacted: the followers' watches go on; what comes next still arrives.
    _, revision = etcd.get(KEY)
    etcd.call("/v3/kv/compaction", {"revision": str(revision), "physical": True})
    faults += 1
    current = publish(five)
    all_at(current, "after compaction")

    # Stale and forged documents, written straight to the key.
    def forged(kind, doc):
        before = time.time_ns()
        etcd.put_raw(KEY, doc)
        wait_for(f"every follower to refuse {kind}",
                 lambda: all(f.seen(lambda e: e.get("event") == "refused" and e.get("kind") == kind
                                    and e["t_ns"] >= before) for f in followers))

    def view_doc(path, epoch_, seed=None):
        cmd = [hrwhash, "view", "--from-nodes", path, "--epoch", str(epoch_)]
        return run(cmd + (["--seed", seed] if seed else [])).encode()

    legit, _ = etcd.get(KEY)
    forged("StaleView", view_doc(six, current - 2))
    forged("SeedMismatch", view_doc(six, current + 5, seed=SECRET))
    forged("ViewConflict", view_doc(six, current))
    forged("InvalidJson", b'{"format": "hrwhash-view-v1", ')
    faults += 4
    # The operator puts the last published document back; the publisher then goes on above it.
    etcd.put_raw(KEY, legit)
    final = publish(six)
    all_at(final, "after the forgeries")
    time.sleep(0.3)

    codes = {f.name: f.close() for f in followers}
    return check(followers, published, codes, languages, ramp_steps, faults, args.keys, absent,
                 recovery_epoch)


def check(followers, published, codes, languages, ramp_steps, faults, keys, absent, recovery_epoch):
    problems = []
    for name, code in codes.items():
        if code != 0:
            problems.append(f"{name} exited with {code}")
    by_epoch = {}
    for f in followers:
        epochs = [int(e["epoch"]) for e in f.applied()]
        if any(b <= a for a, b in zip(epochs, epochs[1:])):
            problems.append(f"{f.name}: epochs do not only increase: {epochs}")
        for e in f.applied():
            ep = int(e["epoch"])
            if ep not in published or published[ep][0] != e["fingerprint"]:
                problems.append(f"{f.name} applied epoch {ep} ({e['fingerprint']}), which was not published")
            by_epoch.setdefault(ep, {})[f.name] = e
        missing = sorted(set(published) - set(epochs))
        if missing:
            problems.append(f"{f.name} never applied published epochs {missing}")
        for kind in ("StaleView", "SeedMismatch", "ViewConflict", "InvalidJson"):
            if not f.seen(lambda e, k=kind: e.get("event") == "refused" and e.get("kind") == k):
                problems.append(f"{f.name} did not refuse {kind}")
        garbage = f.seen(lambda e: e.get("event") == "garbage")
        if garbage:
            problems.append(f"{f.name} printed lines that are not JSON: {garbage[:2]}")
    disagreements = {}
    lags, recovery_lag = [], None
    for ep, seen in sorted(by_epoch.items()):
        digests = {e["owners"] for e in seen.values()}
        disagreements[ep] = len(digests) - 1
        if len(digests) != 1:
            problems.append(f"epoch {ep}: followers disagree on owners: { {n: e['owners'][:12] for n, e in seen.items()} }")
        if len(seen) == len(followers) and ep in published and ep != min(published):
            lag = max(e["t_ns"] for e in seen.values()) - published[ep][1]
            if ep == recovery_epoch:
                recovery_lag = lag
            else:
                lags.append(lag)
    store = [e for f in followers for e in f.seen(lambda e: e.get("event") == "store")]
    final_store = store[-1] if store else None
    if final_store is None:
        problems.append("the store follower reported nothing")
    elif final_store["lost"] != 0:
        problems.append(f"the store lost {final_store['lost']} reads of {final_store['reads']}")
    elif final_store["reads"] == 0 or final_store["copied"] == 0:
        problems.append(f"the store follower read or copied nothing: {final_store}")
    if problems:
        fail("\n  " + "\n  ".join(problems))
    ms = [x / 1e6 for x in lags]
    lines = [
        "followers: PASSED",
        f"  followers: {len(followers)} processes ({', '.join(f.name for f in followers)}); languages run: {', '.join(languages)}",
        f"  not run: {'; '.join(absent) if absent else 'none'}",
        f"  epochs published: {len(published)} (5 -> 6 -> 5 nodes in rounds, weight ramps of {ramp_steps} steps up and down, more after faults)",
        f"  disagreements per epoch: {max(disagreements.values())} (max over {len(disagreements)} epochs)",
        f"  unpublished views applied: 0; epochs only increase: yes",
        f"  lag publish -> last follower applied: p50 {percentile(ms, 50):.1f} ms, p99 {percentile(ms, 99):.1f} ms, max {max(ms):.1f} ms over {len(ms)} epochs",
        f"  first epoch after etcd's restart (followers in backoff): {recovery_lag / 1e6:.0f} ms" if recovery_lag is not None else "  first epoch after etcd's restart: not applied by every follower",
        f"  store (memcached, {keys} keys): reads {final_store['reads']}, lost {final_store['lost']}, "
        f"keys copied {final_store['copied']}, reads the write owner alone would have missed during moves {final_store['lost_without_routes']}",
        f"  faults survived: {faults} (etcd killed and restarted, history compacted, stale, wrong-seed, same-epoch and broken documents refused)",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
