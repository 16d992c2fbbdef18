"""Records conformance/profiles/go-redis-ring-v9.json from go-redis v9's Ring (go/main.go).

Usage: python3 go_redis_ring_v9.py OUT_DIR
"""

import os
import re
import subprocess
import sys

import common

PROFILE = "go-redis-ring-v9"

MEMBERSHIPS = [
    ["only"],
    ["shard-a", "shard-b"],
    ["shard-a", "shard-b", "shard-c"],
    ["shard-c", "shard-b", "shard-a"],
    ["redis-1:6379", "redis-2:6379", "redis-3:6379", "redis-4:6379", "redis-5:6379"],
    ["Zürich", "東京", "🚀-rocket", "ключ"],
    [b"\xff\xfe", b"node-\x80", "plain"],
    [f"node-{i}" for i in range(10)],
    [f"cache{i:02d}.example.internal" for i in range(24)],
]


def module_version(go_dir, module):
    text = open(os.path.join(go_dir, "go.mod"), encoding="utf-8").read()
    return re.search(re.escape(module) + r" (\S+)", text).group(1)


def main(out_dir):
    go_dir = os.path.join(common.HERE, "go")
    binary = common.build_path("record-go-redis")
    subprocess.run(["go", "build", "-o", binary, "."], cwd=go_dir, check=True)
    keys = [k.encode("utf-8") for k in dict.fromkeys(common.TEXT_KEYS)]
    keys += common.BYTE_KEYS + [k.encode("utf-8") for k in common.random_text_keys(120, seed=1)]
    keys += common.random_byte_keys(30, seed=2)
    cases = []
    for members in MEMBERSHIPS:
        ids = [m.encode("utf-8") if isinstance(m, str) else m for m in members]
        cases.append(([(i, 1, 0) for i in ids], keys))
    answers = iter(common.run_incumbent([binary], common.request_lines(cases)))
    recorded = []
    for nodes, keys in cases:
        lookups = []
        for key in keys:
            owner = nodes[int(next(answers))][0]
            lookups.append({**common.text_field("key", key), **common.text_field("owner", owner)})
        recorded.append({"nodes": [common.text_field("id", n[0]) for n in nodes], "lookups": lookups})
    version = module_version(go_dir, "github.com/redis/go-redis/v9")
    rendezvous = module_version(go_dir, "github.com/dgryski/go-rendezvous")
    comment = (
        "go-redis v9 Ring's default placement, recorded by conformance/profiles/record/go_redis_ring_v9.py "
        "from Ring.GetShardClientForKey of a real redis.Ring (never connected) whose Addrs are keyed by "
        "the node ids. A lookup's owner is the id of the shard Ring picked for the key: go-redis first "
        "reduces the key to the text inside its first non-empty {...} (hashtag.Key), then takes the "
        "highest mix64(xxh64(key) ^ xxh64(shard name)). Nodes are unweighted shard names and Ring has "
        "no top-k. Every lookup was also asked of github.com/dgryski/go-rendezvous " + rendezvous
        + " with xxhash (the hash object earlier go-redis releases used) over the raw key, and it named the same "
        "shard as the Ring's own hash object. Text that is not UTF-8 is written as key_hex / id_hex / "
        "owner_hex (Go strings are bytes)."
    )
    print(common.write_profile(out_dir, PROFILE, comment, "github.com/redis/go-redis/v9", version, recorded))


if __name__ == "__main__":
    main(sys.argv[1])
