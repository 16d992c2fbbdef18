"""hrwhash against Python rendezvous-hashing libraries, on the same keys and nodes, in one run.

    make bench                      # or: .venv/bin/python bench/compare.py [--quick]

Keys are "key-0", "key-1", ...; nodes "node-0" .. "node-{N-1}". Each library builds its
placement once (untimed), then answers "which node owns this key?" for K keys, where K is
calibrated so that one pass takes about 0.3 s; the table shows the median over 5 passes in ns
per key. "rust core" is the same workload through the Rust crate (bench/core_owners.rs), the
floor that the batch calls are held to.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import hrwhash

from timing import REPS, Pass, median_ns_per_key, single

NS = (5, 100, 1000)
KMAX = 1 << 18
KEYS = [f"key-{i}" for i in range(KMAX)]
BKEYS = [k.encode() for k in KEYS]

def single_bytes(owner: Callable[[bytes], object]) -> Pass:
    def run(k: int) -> None:
        for key in BKEYS[:k]:
            owner(key)

    return run


def peers(nodes: List[str]) -> Dict[str, Pass]:
    from clandestined import RendezvousHash as Clandestined
    from hrw import choose
    from pymemcache.client.rendezvous import RendezvousHash as Pymemcache

    ids = [n.encode() for n in nodes]
    from_bytes = int.from_bytes
    blake2b = hashlib.blake2b

    def plain(key: str) -> str:
        return max(nodes, key=lambda n: from_bytes(blake2b(f"{n}:{key}".encode(), digest_size=8).digest(), "big"))

    def hrw_owner(key: bytes) -> bytes:
        top: bytes = choose(key, ids, k=1)[0][0]
        return top

    return {
        "pymemcache RendezvousHash": single(Pymemcache(nodes=list(nodes), seed=0).get_node, KEYS),
        "clandestined": single(Clandestined(nodes=list(nodes), seed=0).find_node, KEYS),
        "hrw (bytes keys)": single_bytes(hrw_owner),
        "plain hashlib blake2b HRW": single(plain, KEYS),
    }


def ours(nodes: List[str]) -> Dict[str, Pass]:
    p = hrwhash.Placement(nodes)
    return {
        "hrwhash owner(str)": single(p.owner, KEYS),
        "hrwhash owner(bytes)": single_bytes(p.owner),
        "hrwhash owners(list[str]) batch": lambda k: None if p.owners(KEYS[:k]) else None,
        "hrwhash owners(list[bytes]) batch": lambda k: None if p.owners(BKEYS[:k]) else None,
        "hrwhash rank(str, 3)": single(lambda key: p.rank(key, 3), KEYS),
        "hrwhash rank_many(list[str], 3) batch": lambda k: None if p.rank_many(KEYS[:k], 3) else None,
    }


def measure(run: Pass) -> float:
    return median_ns_per_key(run, KMAX)


def rust_core() -> Dict[Tuple[int, str], float]:
    """ns per key of the Rust core, or nothing when cargo is not available."""
    crate = Path(__file__).resolve().parents[1]
    try:
        out = subprocess.run(
            ["cargo", "run", "--quiet", "--release", "-p", "hrwhash-python", "--example", "core_owners"],
            cwd=crate,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"(rust core not measured: {e})", file=sys.stderr)
        return {}
    result = {}
    for line in out.split():
        n, op, ns = line.split(",")
        result[(int(n), op)] = float(ns)
    return result


def fmt(ns: Optional[float]) -> str:
    if ns is None:
        return "-"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e4:
        return f"{ns / 1e3:.1f} µs"
    return f"{ns:.0f} ns"


def main() -> None:
    core = rust_core()
    table: Dict[str, Dict[int, float]] = {}
    for n in NS:
        nodes = [f"node-{i}" for i in range(n)]
        for name, run in {**peers(nodes), **ours(nodes)}.items():
            table.setdefault(name, {})[n] = measure(run)
        for op, name in (("owner", "rust core owner_index (one key)"), ("owners", "rust core owners_into (batch)")):
            if (n, op) in core:
                table.setdefault(name, {})[n] = core[(n, op)]

    print(f"python {sys.version.split()[0]}, hrwhash {hrwhash.__version__}, {os.cpu_count()} CPUs; ns per key, median of {REPS} passes")
    print()
    print("| library / call | " + " | ".join(f"N = {n}" for n in NS) + " |")
    print("| --- | " + " | ".join("---:" for _ in NS) + " |")
    for name, row in table.items():
        print(f"| {name} | " + " | ".join(fmt(row.get(n)) for n in NS) + " |")
    print()
    base = table["hrwhash owner(str)"]
    print("| peer time / hrwhash owner(str) time | " + " | ".join(f"N = {n}" for n in NS) + " |")
    print("| --- | " + " | ".join("---:" for _ in NS) + " |")
    for name in ("pymemcache RendezvousHash", "clandestined", "hrw (bytes keys)", "plain hashlib blake2b HRW"):
        print(f"| {name} | " + " | ".join(f"{table[name][n] / base[n]:.0f}×" for n in NS) + " |")
    print()
    batch = table["hrwhash owners(list[str]) batch"]
    for n in NS:
        if (n, "owners") in core:
            limit = 1.5 * core[(n, "owners")] + 100
            verdict = "within" if batch[n] <= limit else "OVER"
            print(f"N = {n}: owners() batch {batch[n]:.0f} ns/key, {verdict} the 1.5 × core + 100 ns = {limit:.0f} ns target")
    print(f"N = 100: owner() {base[100]:.0f} ns/key, target <= 520 ns and >= 50× clandestined ({table['clandestined'][100] / base[100]:.0f}×)")


if __name__ == "__main__":
    main()
