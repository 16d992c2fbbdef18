#!/usr/bin/env python3
"""Reference implementation of the slot-table-v1 policy, written from conformance/POLICIES.md
("slot-table (v1)") alone. hrw-v1 digests, scores and draws come from hrw_reference (SPEC.md).

It builds every table by the walk of POLICIES.md over all (slot, node) pairs in the pair order,
and rebuilds it from scratch after every change, so it shares no algorithm with the core (which
runs deferred acceptance over candidate lists and applies changes to the table it has).

    python3 conformance/reference/policy_slot_table.py conformance/policies/slot-table.json

prints `N passed, M failed` on its last line (exit status 0 only when nothing failed).
"""

from __future__ import annotations

import functools
import os
import struct
import sys
from typing import Callable, List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hrw_reference as hrw  # noqa: E402

POLICY = "slot-table-v1"
SLOT_KEY_PREFIX = b"slot-table-v1:"
MAX_SLOTS = 2**24
PPM = 10**6


class SlotError(Exception):
    def __init__(self, name: str):
        super().__init__(name)
        self.name = name


def slot_of(seed: bytes, key: bytes, slots: int) -> int:
    return hrw.key_digest(seed, key) * slots >> 64


def slot_key(s: int) -> bytes:
    return SLOT_KEY_PREFIX + struct.pack("<I", s)


def capacities(ms: hrw.Membership, slots: int, overload: Optional[int]) -> List[int]:
    total = sum(ms.weights)
    caps = []
    for w, h in zip(ms.weights, ms.digests):
        if w == 0:
            caps.append(0)
        elif overload is None:
            caps.append(slots)
        else:
            share = -(-slots * w // total)
            a = slots * w * (PPM + overload)
            b = PPM * total
            f = (a * 2**64 + h * b) // (b * 2**64)
            caps.append(min(slots, max(share, f)))
    return caps


def build(ms: hrw.Membership, slots: int, overload: Optional[int]) -> Tuple[List[int], List[int]]:
    if not 1 <= slots <= MAX_SLOTS:
        raise SlotError("InvalidSlotCount")
    caps = capacities(ms, slots, overload)
    pairs = []
    for s in range(slots):
        kd = hrw.key_digest(ms.seed, slot_key(s))
        for i, w in enumerate(ms.weights):
            if w:
                sc = hrw.score(kd, ms.digests[i])
                pairs.append((hrw.draw(sc), w, sc, ms.ids[i], s, i))

    def before(p, q) -> int:
        lhs, rhs = p[0] * q[1], q[0] * p[1]
        if lhs != rhs:
            return -1 if lhs < rhs else 1
        if p[2] != q[2]:
            return -1 if p[2] > q[2] else 1
        if p[3] != q[3]:
            return -1 if p[3] < q[3] else 1
        return -1 if p[4] < q[4] else 1

    pairs.sort(key=functools.cmp_to_key(before))
    table: List[Optional[int]] = [None] * slots
    held = [0] * len(caps)
    for _, _, _, _, s, i in pairs:
        if table[s] is None and held[i] < caps[i]:
            table[s] = i
            held[i] += 1
    assert all(t is not None for t in table), "capacities sum to at least the slot count"
    return caps, table  # type: ignore[return-value]


def parse_nodes(items) -> List[hrw.Node]:
    return [hrw.Node(n["id"].encode(), float(n.get("weight", 1.0))) for n in items]


def seed_of(case: dict, vectors: dict) -> bytes:
    return bytes.fromhex(case.get("seed", vectors["default_seed"]))


def check_case(case: dict, vectors: dict) -> List[str]:
    problems = []
    seed = seed_of(case, vectors)
    nodes = parse_nodes(case["nodes"])
    slots, overload = case["slots"], case["overload_ppm"]
    ms = hrw.build_membership(seed, nodes)
    caps, table = build(ms, slots, overload)
    exp = case["expected"]
    if caps != exp["capacities"]:
        problems.append(f"capacities {caps} != {exp['capacities']}")
    if table != exp["table"]:
        problems.append("table differs")
    for k in exp["keys"]:
        key = k["key"].encode()
        s = slot_of(seed, key, slots)
        if s != k["slot"] or table[s] != k["owner"]:
            problems.append(f"key {k['key']!r}: slot {s} owner {table[s]}, expected {k}")
    for n, change in enumerate(case.get("changes", [])):
        op, cid = change["op"], change["id"].encode()
        if op == "add":
            nodes = nodes + [hrw.Node(cid, float(change.get("weight", 1.0)))]
        elif op == "remove":
            nodes = [x for x in nodes if x.id != cid]
        else:
            nodes = [x._replace(weight=float(change["weight"])) if x.id == cid else x
                     for x in nodes]
        caps, table = build(hrw.build_membership(seed, nodes), slots, overload)
        e = change["expected"]
        if caps != e["capacities"] or table != e["table"]:
            problems.append(f"change {n} ({op} {change['id']}): table or capacities differ")
    return problems


def check_error_case(case: dict, vectors: dict) -> List[str]:
    seed = seed_of(case, vectors)
    ms = hrw.build_membership(seed, parse_nodes(case["nodes"]))
    slots = int(case["slots"])
    try:
        _, table = build(ms, slots, case["overload_ppm"])
        if "slot" not in case:
            return ["built a table that must be rejected"]
        slot = int(case["slot"])
        if slot < len(table):
            return [f"slot {slot} is in range"]
        got = "SlotOutOfRange"
    except SlotError as e:
        got = e.name
    return [] if got == case["error"] else [f"raised {got}, expected {case['error']}"]


def run_vectors(vectors: dict, policy: str, prefix: bytes, check_case: Callable,
                check_error_case: Callable) -> Tuple[int, List[Tuple[str, List[str]]]]:
    """A slot-table vectors file of `policy` (either version): its constants, then each case
    with `check_case` and each error case with `check_error_case`."""
    assert vectors["policy"] == policy
    assert vectors["slot_key_prefix"].encode() == prefix
    assert vectors["max_slots"] == MAX_SLOTS
    checks = [(c["name"], functools.partial(check_case, c, vectors)) for c in vectors["cases"]]
    checks += [(c["name"], functools.partial(check_error_case, c, vectors)) for c in vectors["error_cases"]]
    return hrw.run_checks(checks)


def run(vectors: dict) -> Tuple[int, List[Tuple[str, List[str]]]]:
    return run_vectors(vectors, POLICY, SLOT_KEY_PREFIX, check_case, check_error_case)


if __name__ == "__main__":
    sys.exit(hrw.report(sys.argv, "slot-table.json", run))
