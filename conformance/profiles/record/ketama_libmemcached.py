"""Records conformance/profiles/ketama-libmemcached.json from libmemcached (c/record_ketama.c).

Usage: python3 ketama_libmemcached.py OUT_DIR   (with libmemcached-dev and uhashring installed)

Every text key is also asked of uhashring's ketama mode; the lookups where the two disagree are
counted per membership and must be exactly the ones the _comment explains.
"""

import os
import subprocess
import sys

from uhashring import HashRing

import common

PROFILE = "ketama-libmemcached"

MEMBERSHIPS = [
    [("10.0.0.1:11211", 1)],
    [("10.0.0.1:11211", 1), ("10.0.0.2:11211", 1), ("10.0.0.3:11211", 1)],
    # libmemcached's own ketama test membership (test/tests/memcached/ketama.cpp).
    [("10.0.1.1:11211", 600), ("10.0.1.2:11211", 300), ("10.0.1.3:11211", 200), ("10.0.1.4:11211", 350),
     ("10.0.1.5:11211", 1000), ("10.0.1.6:11211", 800), ("10.0.1.7:11211", 950), ("10.0.1.8:11211", 100)],
    # Port 11211 is left out of the point strings ("host-i"), any other port is kept ("host:port-i").
    [("cache-a:11211", 1), ("cache-b:11212", 2), ("cache-c:22122", 3)],
    [("cache-a:11212", 1), ("cache-a:11213", 1), ("cache-a:11211", 1)],
    [("café.example:11211", 2), ("東京:11211", 1), ("ключ:11300", 1), ("🚀:11211", 1)],
    # Weights where libmemcached's float arithmetic gives the weight-1 server 28 points, not the 32
    # that exact arithmetic (and uhashring) gives it.
    [("f1:11211", 1), ("f3:11211", 3), ("f7a:11211", 7), ("f7b:11211", 7), ("f7c:11211", 7)],
    [(f"node{i}.internal:{11211 + i % 3}", 1 + i % 4) for i in range(16)],
    # IPv6 addresses in brackets (libmemcached is given the address alone), and one without
    # brackets whose last group cannot be read as port 0 or 11211, where both readings agree.
    [("[2001:db8::0]", 1), ("[2001:db8::1]:11212", 2), ("2001:db8::2", 1), ("[::1]:11211", 1)],
    # UNIX sockets: path:0 is memcached_server_add_unix_socket_with_weight (points "path:0-i"),
    # path:11211 is memcached_server_add_with_weight of the path (points "path-i").
    [("/run/memcached/a.sock:0", 1), ("/run/memcached/b.sock:0", 2), ("/run/memcached/c.sock:11211", 1),
     ("cache:11211", 1)],
]

# The port request_lines sends for a server added with memcached_server_add_unix_socket_with_weight
# (record_ketama.c).
UNIX_SOCKET = 65536

# Memberships where uhashring is expected to disagree (the float case above), with the count.
EXPECTED_DISAGREEMENTS = {6}


def main(out_dir):
    binary = common.build_path("record-ketama")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libmemcached"], capture_output=True,
                           text=True, check=True).stdout.split()
    lm_version = subprocess.run(["pkg-config", "--modversion", "libmemcached"], capture_output=True,
                                text=True, check=True).stdout.strip()
    subprocess.run(["cc", "-std=c11", "-O2", os.path.join(common.HERE, "c", "record_ketama.c"), "-o", binary,
                    *flags], check=True)
    text_keys = list(dict.fromkeys(common.TEXT_KEYS)) + common.random_text_keys(150, seed=4)
    keys = [k.encode("utf-8") for k in text_keys] + common.BYTE_KEYS + common.random_byte_keys(30, seed=5)
    cases = []
    for members in MEMBERSHIPS:
        nodes = []
        for node_id, weight in members:
            host, port = server(node_id)
            nodes.append((host.encode("utf-8"), weight, UNIX_SOCKET if port == 0 else port))
        cases.append((nodes, keys))
    answers = iter(common.run_incumbent([binary], common.request_lines(cases)))
    recorded = []
    disagreeing = set()
    for ci, (members, (nodes, keys)) in enumerate(zip(MEMBERSHIPS, cases)):
        ring = HashRing(nodes={uhashring_name(m): {"weight": w} for m, w in members}, hash_fn="ketama")
        lookups = []
        for key in keys:
            owner = members[int(next(answers))][0]
            try:
                text = key.decode("utf-8")
            except UnicodeDecodeError:
                text = None
            if text is not None and uhashring_name(owner) != ring.get_node(text):
                disagreeing.add(ci)
            lookups.append({**common.text_field("key", key), "owner": owner})
        recorded.append({"nodes": [{"id": m, "weight": w} for m, w in members], "lookups": lookups})
    if disagreeing != EXPECTED_DISAGREEMENTS:
        raise SystemExit(f"uhashring disagrees with libmemcached in memberships {sorted(disagreeing)}, "
                         f"expected {sorted(EXPECTED_DISAGREEMENTS)}")
    comment = (
        "libmemcached's weighted ketama (MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED), recorded by "
        "conformance/profiles/record/ketama_libmemcached.py from memcached_generate_hash of a "
        "memcached_st that has the servers added with memcached_server_add_with_weight (a path:0 "
        "id with memcached_server_add_unix_socket_with_weight) and never connects. A node id is "
        "host:port or [IPv6 address]:port; libmemcached hashes \"host-i\" for port 11211 and "
        "\"host:port-i\" for any other port (port 0 for a UNIX socket), 4 points per MD5 digest, floor(weight / total * 40 * "
        "servers) digests per server computed in single precision (float), so some weightings get "
        "fewer points than exact arithmetic gives. Weights are whole numbers; libmemcached takes a "
        "weight of 0 as 1, which the profile refuses, so no membership here has one. A key maps to the first point "
        "at or after the first 4 bytes (little-endian) of its MD5, wrapping around; with one server "
        "every key maps to it. Keys are bytes (key_hex where not UTF-8). Every UTF-8 key was also "
        "asked of uhashring " + version_of("uhashring") + " (hash_fn=\"ketama\", node names host for "
        "port 11211 and host:port otherwise): it agrees on every lookup except in "
        "the membership f1/f3/f7a/f7b/f7c, where it computes the point counts exactly. No top-k."
    )
    print(common.write_profile(out_dir, PROFILE, comment, "libmemcached", lm_version, recorded))


def server(node_id):
    """The libmemcached call a node id stands for (PROFILES.md 4): (host, port), port 0 for a UNIX
    socket added with memcached_server_add_unix_socket_with_weight."""
    if node_id.startswith("["):
        host, _, rest = node_id[1:].partition("]")
        return host, int(rest[1:]) if rest else 11211
    host, port = node_id.rsplit(":", 1)
    if host.startswith("/") and int(port) == 0:
        return host, 0
    return host, int(port) or 11211


def uhashring_name(node_id):
    host, port = server(node_id)
    return host if port == 11211 else f"{host}:{port}"


def version_of(package):
    from importlib.metadata import version

    return version(package)


if __name__ == "__main__":
    main(sys.argv[1])
