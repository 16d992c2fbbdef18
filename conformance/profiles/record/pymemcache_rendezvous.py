"""Records conformance/profiles/pymemcache-rendezvous.json from pymemcache's RendezvousHash.

Usage: python3 pymemcache_rendezvous.py OUT_DIR   (with pymemcache from requirements.txt)
"""

import sys
from importlib.metadata import version

from pymemcache.client.hash import HashClient
from pymemcache.client.murmur3 import murmur3_32
from pymemcache.client.rendezvous import RendezvousHash

import common

PROFILE = "pymemcache-rendezvous"

MEMBERSHIPS = [
    # pymemcache's own test membership (test_rendezvous.py).
    ["0", "1", "2"],
    ["127.0.0.1:11211"],
    ["127.0.0.1:11211", "127.0.0.2:11211", "127.0.0.3:11211"],
    ["cache-a:11211", "cache-b:11212", "cache-c:11213", "cache-d:11214", "cache-e:11215"],
    ["café:11211", "東京:11211", "ключ:11211", "🚀:11211"],
    # "a" and "š" (U+0161) share their low byte, which is all pymemcache's murmur reads of a code
    # point: the two nodes tie on every key, and the greater string ("š...") always wins.
    ["a:11211", "š:11211", "b:11211"],
    ["š:11211", "a:11211", "b:11211"],
    [f"10.0.0.{i}:11211" for i in range(1, 13)],
]


def main(out_dir):
    # pymemcache's own vectors, so a recording from a changed murmur fails here first.
    assert murmur3_32("6666") == 1361238019
    own = RendezvousHash(["0", "1", "2"])
    assert [own.get_node(k) for k in ("ok", "mykey", "wat")] == ["0", "1", "2"]

    keys = list(dict.fromkeys(common.TEXT_KEYS)) + common.random_text_keys(150, seed=3)
    # A bytes key is hashed as its repr ("b'\\xff'"): the lookup's key is that text.
    keys += [str(b) for b in common.BYTE_KEYS]
    cases = []
    routed = 0
    for members in MEMBERSHIPS:
        hasher = RendezvousHash(list(members))
        client = HashClient([], allow_unicode_keys=True)
        for m in members:
            if ":" in m:
                client.add_server(*m.rsplit(":", 1))
        lookups = []
        for key in keys:
            owner = hasher.get_node(key)
            # HashClient (the object applications use) routes each key it accepts the same way.
            if len(client.clients) == len(members) and is_memcache_key(key):
                assert client._get_client(key).server == tuple_of(owner), (key, owner)
                routed += 1
            lookups.append({**common.text_field("key", key), "owner": owner})
        cases.append({"nodes": [{"id": m} for m in members], "lookups": lookups})
    assert routed > 1000, routed
    comment = (
        "pymemcache HashClient's default RendezvousHash, recorded by "
        "conformance/profiles/record/pymemcache_rendezvous.py from RendezvousHash.get_node. Node ids are "
        "the node strings HashClient builds (host:port). The owner is the node with the highest "
        "murmur3_32(seed 0) of the text f\"{node}-{key}\", where pymemcache's murmur reads the low byte "
        "of each code point; ties go to the greatest node string. Keys and ids are text (a UTF-8 "
        "string); pymemcache hashes a bytes key as its repr, so the keys that start with b' are the "
        "repr of a bytes key. Every lookup of a key that HashClient accepts (allow_unicode_keys=True) "
        "was also routed by HashClient to the same server. Unweighted, no top-k."
    )
    print(common.write_profile(out_dir, PROFILE, comment, "pymemcache", version("pymemcache"), cases))


def tuple_of(node):
    host, port = node.rsplit(":", 1)
    return (host, port)


def is_memcache_key(key):
    return 0 < len(key.encode("utf-8")) <= 250 and not any(c in key for c in " \t\r\n\x00")


if __name__ == "__main__":
    main(sys.argv[1])
