#!/usr/bin/env python3
"""Reference implementation of the slot-table-v2 policy (the levelled slot table), written from
conformance/POLICIES.md ("slot-table (v2)") alone. hrw-v1 digests and scores come from
hrw_reference (SPEC.md).

It keeps the table as a plain list and finds every donor, taker and preferred slot by scanning
all nodes and all slots, with loads compared as exact fractions, so it shares no data structure
with the core (which keeps per-node slot lists and heaps of loads).

    python3 conformance/reference/policy_slot_table_v2.py conformance/policies/slot-table-v2.json

prints `N passed, M failed` on its last line (exit status 0 only when nothing failed).
"""

from __future__ import annotations

import os
import struct
import sys
from fractions import Fraction
from typing import List, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hrw_reference as hrw  # noqa: E402
# The slot of a key and the cases' nodes and seed are read as in slot-table-v1.
from policy_slot_table import parse_nodes, run_vectors, seed_of, slot_of  # noqa: E402,F401

POLICY = "slot-table-v2"
SLOT_KEY_PREFIX = b"slot-table-v2:"
MAX_SLOTS = 2**24


class SlotError(Exception):
    def __init__(self, name: str):
        super().__init__(name)
        self.name = name


def slot_digest(seed: bytes, s: int) -> int:
    return hrw.key_digest(seed, SLOT_KEY_PREFIX + struct.pack("<I", s))


def first_table(ms: hrw.Membership, slots: int) -> List[int]:
    if not 1 <= slots <= MAX_SLOTS:
        raise SlotError("InvalidSlotCount")
    total = sum(ms.weights)
    n = len(ms.ids)
    quota = [slots * w // total for w in ms.weights]
    short = slots - sum(quota)
    by_remainder = sorted(range(n), key=lambda i: (-(slots * ms.weights[i] % total),
                                                   ms.digests[i], ms.ids[i]))
    for i in by_remainder[:short]:
        quota[i] += 1
    table: List[int] = []
    for i in sorted(range(n), key=lambda i: (ms.digests[i], ms.ids[i])):
        table += [i] * quota[i]
    return table


def load_key(ms: hrw.Membership, table: List[int], i: int):
    """Sorts as the load order: greater is more loaded."""
    return (Fraction(table.count(i), ms.weights[i]), ms.digests[i], ms.ids[i])


def preferred(ms: hrw.Membership, sds: List[int], table: List[int], chooser: int, holder: int) -> int:
    held = [s for s in range(len(table)) if table[s] == holder]
    return max(held, key=lambda s: (hrw.score(sds[s], ms.digests[chooser]), -s))


def level(ms: hrw.Membership, sds: List[int], table: List[int], j: int) -> None:
    total = sum(ms.weights)
    slots = len(table)
    target = (2 * slots * ms.weights[j] + total) // (2 * total)
    others = [i for i in range(len(ms.ids)) if i != j and ms.weights[i] > 0]
    while table.count(j) < target:
        donor = max(others, key=lambda i: load_key(ms, table, i))
        table[preferred(ms, sds, table, j, donor)] = j
    while table.count(j) > target:
        taker = min(others, key=lambda i: load_key(ms, table, i))
        table[preferred(ms, sds, table, taker, j)] = taker


def apply(seed: bytes, nodes: List[hrw.Node], table: List[int], change: dict):
    """One change; returns the new node list and table."""
    op, cid = change["op"], change["id"].encode()
    sds = [slot_digest(seed, s) for s in range(len(table))]
    ids = [x.id for x in nodes]
    if op == "add":
        nodes = nodes + [hrw.Node(cid, float(change.get("weight", 1.0)))]
        ms = hrw.build_membership(seed, nodes)
        level(ms, sds, table, len(nodes) - 1)
        return nodes, table
    if cid not in ids:
        raise SlotError("UnknownNode")
    j = ids.index(cid)
    if op == "weight":
        nodes = [x._replace(weight=float(change["weight"])) if x.id == cid else x for x in nodes]
        level(hrw.build_membership(seed, nodes), sds, table, j)
        return nodes, table
    rest = [x for x in nodes if x.id != cid]
    hrw.build_membership(seed, rest)  # the membership without it must be valid first
    drained = [x._replace(weight=0.0) if x.id == cid else x for x in nodes]
    level(hrw.build_membership(seed, drained), sds, table, j)
    assert j not in table
    return rest, [o - 1 if o > j else o for o in table]


def check_case(case: dict, vectors: dict) -> List[str]:
    problems = []
    seed = seed_of(case, vectors)
    nodes = parse_nodes(case["nodes"])
    slots = case["slots"]
    table = first_table(hrw.build_membership(seed, nodes), slots)
    exp = case["expected"]
    if table != exp["table"]:
        problems.append("first table differs")
    for k in exp["keys"]:
        s = slot_of(seed, k["key"].encode(), slots)
        if s != k["slot"] or table[s] != k["owner"]:
            problems.append(f"key {k['key']!r}: slot {s} owner {table[s]}, expected {k}")
    for n, change in enumerate(case.get("changes", [])):
        nodes, table = apply(seed, nodes, table, change)
        if table != change["expected"]["table"]:
            problems.append(f"change {n} ({change['op']} {change['id']}): table differs")
            break  # the following tables start from this one
    return problems


def check_error_case(case: dict, vectors: dict) -> List[str]:
    seed = seed_of(case, vectors)
    nodes = parse_nodes(case["nodes"])
    try:
        table = first_table(hrw.build_membership(seed, nodes), int(case["slots"]))
        if "slot" in case:
            if int(case["slot"]) < len(table):
                return [f"slot {case['slot']} is in range"]
            raise SlotError("SlotOutOfRange")
        for change in case.get("changes", []):
            nodes, table = apply(seed, nodes, table, change)
        return ["no change failed"]
    except (SlotError, hrw.HrwError) as e:
        got = e.name
    return [] if got == case["error"] else [f"raised {got}, expected {case['error']}"]


def run(vectors: dict) -> Tuple[int, List[Tuple[str, List[str]]]]:
    return run_vectors(vectors, POLICY, SLOT_KEY_PREFIX, check_case, check_error_case)


if __name__ == "__main__":
    sys.exit(hrw.report(sys.argv, "slot-table-v2.json", run))
