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
    m = re.match(r"Benchmark\w+/lib=([\w-]+)/N=(\d+)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op", line)
    if m:
        go[(m.group(1), int(m.group(2)))].append(float(m.group(3)))
        continue
    m = re.match(r"(core|c-abi)\s+N=(\d+)\s+owner\s+([\d.]+) ns/key", line)
    if m:
        c[(m.group(1), int(m.group(2)))].append(float(m.group(3)))

def paired(peer, ours):
    """Median over rounds of the ratio within a round: load that hits a round hits both sides."""
    return statistics.median(p / o for p, o in zip(peer, ours))


med = {k: statistics.median(v) for k, v in go.items()}
if med:
    rounds = min(len(v) for v in go.values())
    print(f"Go, ns per key (median of {rounds} interleaved rounds); speed-up = median of per-round ratios")
    print(f"{'N':>6} {'go-rendezvous':>14} {'hrwhash':>9} {'hrwhash batch':>14} {'single x':>9} {'batch x':>8}")
    for n in sorted({n for _, n in med}):
        peer, one, batch = go[("go-rendezvous", n)], go[("hrwhash", n)], go[("hrwhash-batch", n)]
        print(
            f"{n:>6} {med[('go-rendezvous', n)]:>14.1f} {med[('hrwhash', n)]:>9.1f}"
            f" {med[('hrwhash-batch', n)]:>14.1f} {paired(peer, one):>8.2f}x {paired(peer, batch):>7.2f}x"
        )
cmed = {k: statistics.median(v) for k, v in c.items()}
if cmed:
    rounds = min(len(v) for v in c.values())
    print(f"\nC ABI vs Rust core, ns per owner() call (median of {rounds} alternating runs)")
    print(f"{'N':>6} {'core':>8} {'C ABI':>8} {'overhead':>9}")
    for n in sorted({n for _, n in cmed}):
        core, abi = cmed[("core", n)], cmed[("c-abi", n)]
        diff = statistics.median(a - b for a, b in zip(c[("c-abi", n)], c[("core", n)]))
        print(f"{n:>6} {core:>8.1f} {abi:>8.1f} {diff:>+9.1f}")
