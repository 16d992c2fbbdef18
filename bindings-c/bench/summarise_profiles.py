"""The go-redis-ring-v9 profile beside go-redis itself: a Markdown table of median ns per key
and hrwhash's speed-up, from interleaved rounds of `go test -bench GoRedisRingV9` (stdin).

x = the median over rounds of (go-redis ns / hrwhash ns) taken within one round of one test
binary, so a burst of load on the shared machine hits both sides of a ratio alike.
"""
import re
import statistics
import sys
from collections import defaultdict

runs = defaultdict(list)  # (build, lib, n) -> ns per round
for line in sys.stdin:
    m = re.match(r"BenchmarkGoRedisRingV9/build=(\w+)/lib=([\w-]+)/N=(\d+)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op", line)
    if m:
        runs[(m.group(1), m.group(2), int(m.group(3)))].append(float(m.group(4)))
if not runs:
    sys.exit("no GoRedisRingV9 benchmark lines on stdin")

med = {k: statistics.median(v) for k, v in runs.items()}
rounds = min(len(v) for v in runs.values())


def ratio(build, peer, n):
    return statistics.median(p / o for p, o in zip(runs[(build, peer, n)], runs[(build, "hrwhash", n)]))


print(f"ns per key, median of {rounds} interleaved rounds; x = speed-up of hrwhash over go-redis")
print()
print("| shards | build | go-redis `Get` of a reduced key | go-redis `hashtag.Key` + `Get` "
      "| go-redis Ring `GetShardClientForKey` | hrwhash `Owner` | x vs `Get` | x vs `hashtag.Key` + `Get` "
      "| x vs Ring |")
print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for n in sorted({n for _, _, n in med}):
    for build in ("cgo", "purego"):
        if (build, "hrwhash", n) not in med:
            continue
        print(f"| {n} | {build} | {med[(build, 'go-redis-hash', n)]:.1f} "
              f"| {med[(build, 'go-redis-hashtag-hash', n)]:.1f} | {med[(build, 'go-redis-ring', n)]:.1f} "
              f"| {med[(build, 'hrwhash', n)]:.1f} | {ratio(build, 'go-redis-hash', n):.2f}x "
              f"| {ratio(build, 'go-redis-hashtag-hash', n):.2f}x | {ratio(build, 'go-redis-ring', n):.2f}x |")
