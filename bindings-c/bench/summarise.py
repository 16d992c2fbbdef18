"""Median ns/op per benchmark over interleaved rounds, and hrwhash's speed-up over the peers.

Reads `go test -bench` output and the lines of overhead.c / core_lookup.rs from stdin.
"""
import re
import statistics
import sys
from collections import defaultdict

go = defaultdict(list)  # (lib, n) -> ns
c = defaultdict(list)  # (side, n) -> ns
for line in sys.stdin:
    m = re.match(r"Benchmark\w+/lib=([\w-]+)/N=(\d+)-\d+\s+\d+\s+([\d.]+) ns/op", line)
    if m:
        go[(m.group(1), int(m.group(2)))].append(float(m.group(3)))
        continue
    m = re.match(r"(core|c-abi)\s+N=(\d+)\s+owner\s+([\d.]+) ns/key", line)
    if m:
        c[(m.group(1), int(m.group(2)))].append(float(m.group(3)))

med = {k: statistics.median(v) for k, v in go.items()}
if med:
    rounds = min(len(v) for v in go.values())
    print(f"Go, ns per key (median of {rounds} interleaved rounds)")
    print(f"{'N':>6} {'go-rendezvous':>14} {'hrwhash':>9} {'hrwhash batch':>14} {'single x':>9} {'batch x':>8}")
    for n in sorted({n for _, n in med}):
        peer, one, batch = med.get(("go-rendezvous", n)), med.get(("hrwhash", n)), med.get(("hrwhash-batch", n))
        print(f"{n:>6} {peer:>14.1f} {one:>9.1f} {batch:>14.1f} {peer / one:>8.2f}x {peer / batch:>7.2f}x")
cmed = {k: statistics.median(v) for k, v in c.items()}
if cmed:
    rounds = min(len(v) for v in c.values())
    print(f"\nC ABI vs Rust core, ns per owner() call (median of {rounds} alternating runs)")
    print(f"{'N':>6} {'core':>8} {'C ABI':>8} {'overhead':>9}")
    for n in sorted({n for _, n in cmed}):
        core, abi = cmed[("core", n)], cmed[("c-abi", n)]
        print(f"{n:>6} {core:>8.1f} {abi:>8.1f} {abi - core:>+9.1f}")
