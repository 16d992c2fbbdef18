"""Records conformance/profiles/hashring-node-3.json from the npm hashring package (node/record.js).

Usage: python3 hashring_node_3.py OUT_DIR   (after `npm ci` in node/)
"""

import json
import os
import sys

import common

PROFILE = "hashring-node-3"

MEMBERSHIPS = [
    [("127.0.0.1:11211", 1)],
    [("127.0.0.1:11211", 1), ("127.0.0.2:11211", 1), ("127.0.0.3:11211", 1)],
    [("cache-a:11211", 1), ("cache-b:11211", 2), ("cache-c:11211", 3), ("cache-d:11211", 4), ("cache-e:11211", 5)],
    # Any string is a server; the port does not change the point strings ("<server>-i").
    [("cache-a", 1), ("cache-a:11212", 1), ("redis://cache-b:6379", 1)],
    [("café:11211", 2), ("東京:11211", 1), ("ключ:11300", 1), ("🚀", 1)],
    [("big:11211", 100), ("small:11211", 1), ("mid:11211", 10)],
    # Weights where (weight / total) * 40 * servers lands just under an integer in double precision,
    # so the weight-18 server gets one point string fewer than exact arithmetic gives.
    [(f"d{i}:11211", w) for i, w in enumerate([6, 6, 17, 8, 1, 7, 18])],
    [(f"node{i}.internal:{11211 + i % 3}", 1 + i % 4) for i in range(16)],
]


def main(out_dir):
    node_dir = os.path.join(common.HERE, "node")
    with open(os.path.join(node_dir, "node_modules", "hashring", "package.json"), encoding="utf-8") as f:
        hashring_version = json.load(f)["version"]
    keys = [k.encode("utf-8") for k in dict.fromkeys(common.TEXT_KEYS)]
    keys += [k.encode("utf-8") for k in common.random_text_keys(150, seed=6)]
    cases = [([(m.encode("utf-8"), w, 0) for m, w in members], keys) for members in MEMBERSHIPS]
    answers = iter(common.run_incumbent(["node", "record.js"], common.request_lines(cases), cwd=node_dir))
    recorded = []
    for members, (_, keys) in zip(MEMBERSHIPS, cases):
        lookups = []
        for key in keys:
            owner, ranked = next(answers).split(" ")
            replicas = [members[int(i)][0] for i in ranked.split(",")]
            assert replicas[0] == members[int(owner)][0]
            lookups.append({**common.text_field("key", key), "owner": members[int(owner)][0], "replicas": replicas})
        recorded.append({"nodes": [{"id": m, "weight": w} for m, w in members], "lookups": lookups})
    comment = (
        "The npm hashring package's defaults, recorded by conformance/profiles/record/hashring_node_3.py "
        "from HashRing.get and HashRing.range. A node id is hashring's server string; for each server "
        "Math.floor(weight / total * 40 * servers) point strings \"<id>-i\" (double precision, so a "
        "weighting can land one under exact arithmetic), each MD5 digest "
        "giving 4 points. A key maps to the first point at or after the first 4 bytes (little-endian) "
        "of the MD5 of its UTF-8 text, wrapping around; equal points keep server order. replicas is "
        "range(key): every server once, walking the ring from the key's point, so top-k is its first "
        "k entries. Weights are whole numbers: hashring also takes fractional weights and takes a "
        "weight of 0 as 1, both of which the profile refuses, so no membership here has one. Keys are "
        "text (JavaScript strings)."
    )
    print(common.write_profile(out_dir, PROFILE, comment, "hashring", hashring_version, recorded))


if __name__ == "__main__":
    main(sys.argv[1])
