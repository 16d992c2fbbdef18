"""Median ns/op per benchmark over interleaved rounds, and hrwhash's speed-up over the peers.

Reads `go test -bench` output and the lines of overhead.c / core_lookup.rs from stdin.
"""
import re
import statistics
import sys
from collections import defaultdict

go = defaultdict(list)  # (build, lib, n) -> ns
c = defaultdict(list)  # (side, n) -> ns
for line in sys.stdin:
    m = re.match(r"Benchmark\w+/build=(\w+)/lib=([\w-]+)/N=(\d+)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op", line)
    if m:
        go[(m.group(1), m.group(2), int(m.group(3)))].append(float(m.group(4)))
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
    print(f"Go, ns per key (median of {rounds} interleaved rounds); x = speed-up over go-rendezvous,")
    print("the median of per-round ratios taken within one test binary")
    print(f"{'N':>6} {'build':>7} {'go-rendezvous':>14} {'hrwhash':>9} {'hrwhash batch':>14} {'single x':>9} {'batch x':>8}")
    for n in sorted({n for _, _, n in med}):
        for build in ("cgo", "purego"):
            if (build, "hrwhash", n) not in go:
                continue
            peer, one, batch = (go[(build, lib, n)] for lib in ("go-rendezvous", "hrwhash", "hrwhash-batch"))
            print(
                f"{n:>6} {build:>7} {med[(build, 'go-rendezvous', n)]:>14.1f} {med[(build, 'hrwhash', n)]:>9.1f}"
                f" {med[(build, 'hrwhash-batch', n)]:>14.1f} {paired(peer, one):>8.2f}x {paired(peer, batch):>7.2f}x"
            )
ranked = [(b, n) for b, lib, n in med if lib == "hrwhash-rankinto3"]
if ranked:
    print("\nGo rankings and the weighted owner, ns per key (medians); x = that / owner of the same round")
    print(f"{'N':>6} {'build':>7} {'owner':>8} {'Rank(k,3)':>10} {'RankInto':>9} {'x':>6} {'weighted':>9} {'x':>6}")
    for build, n in sorted(ranked, key=lambda bn: (bn[1], bn[0])):
        own = go[(build, "hrwhash", n)]
        into, weighted = go[(build, "hrwhash-rankinto3", n)], go[(build, "hrwhash-weighted", n)]
        print(
            f"{n:>6} {build:>7} {med[(build, 'hrwhash', n)]:>8.1f} {med[(build, 'hrwhash-rank3', n)]:>10.1f}"
            f" {med[(build, 'hrwhash-rankinto3', n)]:>9.1f} {paired(into, own):>5.2f}x"
            f" {med[(build, 'hrwhash-weighted', n)]:>9.1f} {paired(weighted, own):>5.2f}x"
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
