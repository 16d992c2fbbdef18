#!/usr/bin/env python3
"""Reference implementation of hrwhash-slot-history-v1, written from conformance/SLOT-HISTORY.md
alone. The JSON rules, strings, weights and view fingerprints come from view_reference (VIEW.md),
the first table and the levelling from policy_slot_table_v2, the ranked table from
policy_slot_table (POLICIES.md); the document, its checks, the replay and the table fingerprint
are here, with the standard library only.

    python3 conformance/reference/slot_history_reference.py conformance/policies/slot-history-v1.json

recomputes every case and prints `N passed, M failed` on its last line (exit status 0 only when
nothing failed).
"""

from __future__ import annotations

import functools
import hashlib
import os
import struct
import sys
from typing import List, NamedTuple, Optional, Sequence, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hrw_reference as hrw  # noqa: E402
import policy_slot_table as ranked  # noqa: E402
import policy_slot_table_v2 as st  # noqa: E402
import view_reference as vr  # noqa: E402

FORMAT = "hrwhash-slot-history-v1"
POLICY = "slot-table-v2"            # levelled
RANKED_POLICY = "slot-table-v1"
MAX_OVERLOAD = 2**32 - 1
MAX_CHANGES = 65536
# Section 6: what replaying one history may cost (a levelled change S + N, a ranked one N).
MAX_REPLAY_COST = 2**25
MAX_SLOTS = 2**24
ONE = 2**32

TOP = ["format", "policy", "overload_ppm", "epoch", "seed", "seed_fingerprint", "slots", "initial",
       "changes"]
NODE = ["id", "id_hex", "weight", "domain", "domain_hex"]
CHANGE = ["op"] + NODE
# The members each op takes besides op and the id (section 2), checked in this order (5.10).
OPTIONAL = ["weight", "domain", "domain_hex"]
TAKES = {"add": {"weight", "domain", "domain_hex"}, "remove": set(), "weight": {"weight"}}


class Error(vr.ViewError):
    def __init__(self, name: str, field: Optional[str] = None, index: Optional[int] = None,
                 reason: Optional[str] = None, first_index: Optional[int] = None,
                 value: Optional[int] = None):
        super().__init__(name, field, index, reason, first_index)
        self.value = value


def invalid(field: str, index: Optional[int], reason: str) -> Error:
    return Error("InvalidView", field, index, reason)


class NodeSpec(NamedTuple):
    id: bytes
    weight: int                 # fixed point (SPEC.md 5.1)
    domain: Optional[bytes]


class Change(NamedTuple):
    op: str
    id: bytes
    weight: Optional[int]       # add and weight
    domain: Optional[bytes]     # add


class Mode(NamedTuple):
    policy: str                 # POLICY (levelled) or RANKED_POLICY
    overload: Optional[int]     # ranked only; None: no bound


LEVELLED = Mode(POLICY, None)


class History(NamedTuple):
    epoch: int
    seed: bytes
    slots: int
    initial: List[NodeSpec]
    changes: List[Change]
    mode: Mode = LEVELLED


# --------------------------------------------------------------------------------------------
# 5. Loading
# --------------------------------------------------------------------------------------------

def members(obj: vr.Object, known: Sequence[str], prefix: str, index: Optional[int]) -> dict:
    return vr.members(obj, known, index, prefix, invalid)


def string(value, field: str, index: Optional[int]) -> str:
    return vr.string(value, field, index, invalid)


def text_or_hex(m: dict, name: str, prefix: str, index: int) -> Optional[bytes]:
    return vr.text_or_hex(m, name, index, prefix, invalid)


def node_members(m: dict, prefix: str, index: int) -> NodeSpec:
    """VIEW.md 5 check 9 for one node, its members named `prefix + member`."""
    node_id = text_or_hex(m, "id", prefix, index)
    if node_id is None:
        raise invalid(prefix + "id", index, "missing")
    w = ONE
    if "weight" in m:
        if not isinstance(m["weight"], vr.Number):
            raise invalid(prefix + "weight", index, "wrong_type")
        try:
            w = hrw.fixed_weight(float(m["weight"]))
        except hrw.HrwError:
            raise invalid(prefix + "weight", index, "out_of_range")
    return NodeSpec(node_id, w, text_or_hex(m, "domain", prefix, index))


def parse_change(element, i: int) -> Change:
    if i >= MAX_CHANGES:
        raise invalid("changes", i, "out_of_range")
    if not isinstance(element, vr.Object):
        raise invalid("changes", i, "wrong_type")
    m = members(element, CHANGE, "changes.", i)
    if "op" not in m:
        raise invalid("changes.op", i, "missing")
    op = string(m["op"], "changes.op", i)
    if op not in TAKES:
        raise invalid("changes.op", i, "invalid")
    for name in OPTIONAL:
        if name in m and name not in TAKES[op]:
            raise invalid("changes." + name, i, "unknown")
    node = node_members(m, "changes.", i)
    if op == "weight" and "weight" not in m:
        raise invalid("changes.weight", i, "missing")
    if op == "remove":
        return Change(op, node.id, None, None)
    if op == "weight":
        return Change(op, node.id, node.weight, None)
    return Change(op, node.id, node.weight, node.domain)


def slot_count(s: float) -> int:
    """Check 8 after the type: a whole number below 2^64, then 1 to 2^24."""
    if not (0 <= s < 2**64 and s == int(s)):
        raise invalid("slots", None, "invalid")
    if not 1 <= int(s) <= MAX_SLOTS:
        raise Error("InvalidSlotCount", value=int(s))
    return int(s)


def overload_of(m: dict, policy: str) -> Optional[int]:
    """Check 5 after the policy: the bound, only with a ranked policy."""
    if "overload_ppm" not in m:
        return None
    if policy == POLICY:
        raise invalid("overload_ppm", None, "conflict")
    p = m["overload_ppm"]
    if not isinstance(p, vr.Number):
        raise invalid("overload_ppm", None, "wrong_type")
    p = float(p)
    if p > MAX_OVERLOAD:
        raise invalid("overload_ppm", None, "out_of_range")
    if not (p >= 0 and p == int(p)):
        raise invalid("overload_ppm", None, "invalid")
    return int(p)


def load_document(data: bytes) -> Tuple[int, Optional[bytes], int, List[NodeSpec], List[Change],
                                        Mode]:
    """Checks 1 to 10."""
    doc = vr.parse_json(data)
    if not isinstance(doc, vr.Object):
        raise invalid("", None, "wrong_type")
    m = members(doc, TOP, "", None)
    for name, allowed in (("format", (FORMAT,)), ("policy", (POLICY, RANKED_POLICY))):
        if name not in m:
            raise invalid(name, None, "missing")
        if string(m[name], name, None) not in allowed:
            raise invalid(name, None, "unsupported")
    policy = string(m["policy"], "policy", None)
    mode = Mode(policy, overload_of(m, policy))
    epoch, fingerprint = vr.epoch_and_seed(m, invalid)
    if "slots" not in m:
        raise invalid("slots", None, "missing")
    if not isinstance(m["slots"], vr.Number):
        raise invalid("slots", None, "wrong_type")
    slots = slot_count(float(m["slots"]))
    lists = {}
    for name in ("initial", "changes"):
        if name not in m:
            raise invalid(name, None, "missing")
        if not isinstance(m[name], list):
            raise invalid(name, None, "wrong_type")
        lists[name] = m[name]
    initial = []
    for i, element in enumerate(lists["initial"]):
        if not isinstance(element, vr.Object):
            raise invalid("initial", i, "wrong_type")
        initial.append(node_members(members(element, NODE, "initial.", i), "initial.", i))
    changes = [parse_change(c, i) for i, c in enumerate(lists["changes"])]
    return epoch, fingerprint, slots, initial, changes, mode


def check_membership(nodes: List[NodeSpec]) -> None:
    """VIEW.md 5 check 10, positions in `nodes`."""
    if not nodes:
        raise Error("EmptyMembership")
    for i, n in enumerate(nodes):
        if not n.id:
            raise Error("EmptyNodeId", index=i)
    first = {}
    for i, n in enumerate(nodes):
        if n.id in first:
            raise Error("DuplicateNodeId", index=i, first_index=first[n.id])
        first[n.id] = i
    if all(n.weight == 0 for n in nodes):
        raise Error("AllWeightsZero")


def load(data: bytes, seed: bytes = hrw.DEFAULT_SEED) -> Tuple[History, "Table"]:
    epoch, fingerprint, slots, initial, changes, mode = load_document(data)
    check_membership(initial)
    ok = seed == hrw.DEFAULT_SEED if fingerprint is None else vr.seed_fingerprint(seed) == fingerprint
    if not ok:
        raise Error("SeedMismatch")
    h = History(epoch, seed, slots, initial, changes, mode)
    return h, replay(h)


# --------------------------------------------------------------------------------------------
# 2. The table of a history (the replay, with the errors of 5.13)
# --------------------------------------------------------------------------------------------

class Table(NamedTuple):
    nodes: List[NodeSpec]       # the final membership, in build order
    owners: List[int]           # build-order index of each slot's node


def membership(seed: bytes, nodes: List[NodeSpec]) -> hrw.Membership:
    return hrw.build_membership(seed, [hrw.Node(n.id, n.weight / 2**32, n.domain) for n in nodes])


def changed(nodes: List[NodeSpec], c: Change, position: int) -> List[NodeSpec]:
    """The membership after change `c` (at `position` in the history), with the errors of 5.13."""
    ids = [n.id for n in nodes]
    if c.op == "add":
        if not c.id:
            raise Error("EmptyNodeId", index=position)
        if c.id in ids:
            raise Error("DuplicateNodeId", index=position, first_index=ids.index(c.id))
        return nodes + [NodeSpec(c.id, c.weight, c.domain)]
    if c.id not in ids:
        raise Error("UnknownNode")
    j = ids.index(c.id)
    if c.op == "weight":
        nodes = [n._replace(weight=c.weight) if i == j else n for i, n in enumerate(nodes)]
        if all(n.weight == 0 for n in nodes):
            raise Error("AllWeightsZero")
        return nodes
    rest = nodes[:j] + nodes[j + 1:]
    if not rest:
        raise Error("EmptyMembership")
    if all(n.weight == 0 for n in rest):
        raise Error("AllWeightsZero")
    return rest


def apply(seed: bytes, nodes: List[NodeSpec], table: List[int], sds: List[int], c: Change,
          position: int) -> List[NodeSpec]:
    """Applies change `c` (at `position` in the history) to the levelled `table` in place;
    returns the nodes."""
    after = changed(nodes, c, position)
    if c.op == "add":
        st.level(membership(seed, after), sds, table, len(after) - 1)
        return after
    j = [n.id for n in nodes].index(c.id)
    if c.op == "weight":
        st.level(membership(seed, after), sds, table, j)
        return after
    drained = [n._replace(weight=0) if i == j else n for i, n in enumerate(nodes)]
    st.level(membership(seed, drained), sds, table, j)
    table[:] = [o - 1 if o > j else o for o in table]
    return after


def charged(cost: int, h: History, nodes: List[NodeSpec]) -> int:
    """5.13: the replay cost once one more change applies to `nodes`."""
    cost += len(nodes) + (0 if h.mode.policy == RANKED_POLICY else h.slots)
    if cost > MAX_REPLAY_COST:
        raise Error("ResultTooLarge")
    return cost


def replay(h: History) -> Table:
    cost = 0
    if h.mode.policy == RANKED_POLICY:
        # The slot-table-v1 table of the final membership; the changes still fail as they would.
        nodes = list(h.initial)
        for position, c in enumerate(h.changes):
            cost = charged(cost, h, nodes)
            nodes = changed(nodes, c, position)
        _, owners = ranked.build(membership(h.seed, nodes), h.slots, h.mode.overload)
        return Table(nodes, owners)
    if len(h.changes) * (h.slots + 1) > MAX_REPLAY_COST:
        raise Error("ResultTooLarge")
    nodes = list(h.initial)
    table = st.first_table(membership(h.seed, nodes), h.slots)
    sds = [st.slot_digest(h.seed, s) for s in range(h.slots)]
    for position, c in enumerate(h.changes):
        cost = charged(cost, h, nodes)
        nodes = apply(h.seed, nodes, table, sds, c, position)
    return Table(nodes, table)


# --------------------------------------------------------------------------------------------
# 3. Canonical form, 4. Fingerprints and the final view
# --------------------------------------------------------------------------------------------

def node_parts(n: NodeSpec) -> List[str]:
    parts = [vr.text_member("id", n.id)]
    if n.weight != ONE:
        parts.append(f'"weight": {vr.weight_text(n.weight)}')
    if n.domain is not None:
        parts.append(vr.text_member("domain", n.domain))
    return parts


def change_parts(c: Change) -> List[str]:
    parts = [f'"op": "{c.op}"']
    if c.op == "add":
        return parts + node_parts(NodeSpec(c.id, c.weight, c.domain))
    parts.append(vr.text_member("id", c.id))
    if c.op == "weight":
        parts.append(f'"weight": {vr.weight_text(c.weight)}')
    return parts


def initial_order(h: History) -> List[NodeSpec]:
    return sorted(h.initial, key=lambda n: n.id)


def canonical(h: History) -> str:
    lines = ["{", f'  "format": "{FORMAT}",', f'  "policy": "{h.mode.policy}",']
    if h.mode.overload is not None:
        lines.append(f'  "overload_ppm": {h.mode.overload},')
    lines.append(f'  "epoch": "{h.epoch}",')
    if h.seed == hrw.DEFAULT_SEED:
        lines.append('  "seed": "default",')
    else:
        lines.append('  "seed": "secret",')
        lines.append(f'  "seed_fingerprint": "{vr.seed_fingerprint(h.seed).hex()}",')
    lines.append(f'  "slots": {h.slots},')
    lines.append('  "initial": [')
    nodes = initial_order(h)
    for k, n in enumerate(nodes):
        lines.append("    {" + ", ".join(node_parts(n)) + "}" + ("," if k + 1 < len(nodes) else ""))
    if not h.changes:
        lines += ["  ],", '  "changes": []', "}"]
    else:
        lines += ["  ],", '  "changes": [']
        for k, c in enumerate(h.changes):
            lines.append("    {" + ", ".join(change_parts(c)) + "}"
                         + ("," if k + 1 < len(h.changes) else ""))
        lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


def final_view(h: History, t: Table) -> vr.View:
    return vr.View(h.epoch, h.seed, [n.id for n in t.nodes], [n.weight for n in t.nodes],
                   [n.domain for n in t.nodes])


def ranks(t: Table) -> List[int]:
    """rank[i]: position of node i's id among the final ids in ascending bytewise order."""
    order = sorted(range(len(t.nodes)), key=lambda i: t.nodes[i].id)
    rank = [0] * len(order)
    for r, i in enumerate(order):
        rank[i] = r
    return rank


def table_fingerprint(h: History, t: Table) -> bytes:
    rank = ranks(t)
    m = hrw.u64le(len(h.mode.policy)) + h.mode.policy.encode()
    if h.mode.policy == RANKED_POLICY:
        bound = h.mode.overload
        m += bytes([bound is not None]) + struct.pack("<I", 0 if bound is None else bound)
    m += vr.view_fingerprint(final_view(h, t))
    m += hrw.u64le(h.slots)
    m += b"".join(struct.pack("<I", rank[o]) for o in t.owners)
    return hashlib.sha256(m).digest()[:16]


# --------------------------------------------------------------------------------------------
# 8. Conformance: policies/slot-history-v1.json
# --------------------------------------------------------------------------------------------

def owner_id(case: dict) -> bytes:
    return case["owner"].encode("utf-8") if "owner" in case else bytes.fromhex(case["owner_hex"])


def check_valid(case: dict) -> List[str]:
    h, t = load(vr.document(case), vr.case_seed(case))
    problems = []
    if canonical(h) != case["canonical"]:
        problems.append("canonical form")
    again, t2 = load(canonical(h).encode("utf-8"), h.seed)
    if canonical(again) != canonical(h) or table_fingerprint(again, t2) != table_fingerprint(h, t):
        problems.append("the canonical form does not load back to the same history and table")
    if len(h.changes) != case["changes"]:
        problems.append("number of changes")
    if table_fingerprint(h, t).hex() != case["table_fingerprint"]:
        problems.append("table fingerprint")
    view = final_view(h, t)
    if vr.view_fingerprint(view).hex() != case["view_fingerprint"]:
        problems.append("final view fingerprint")
    if vr.canonical(view) != case["view"]:
        problems.append("final view")
    for o in case["owners"]:
        slot = o["slot"]
        if "key" in o and st.slot_of(h.seed, o["key"].encode("utf-8"), h.slots) != slot:
            problems.append(f"slot of {o['key']!r}")
        if t.nodes[t.owners[slot]].id != owner_id(o):
            problems.append(f"owner of slot {slot}")
    return problems


def check_same_membership(case: dict) -> List[str]:
    (ha, ta), (hb, tb) = load(case["a"].encode("utf-8")), load(case["b"].encode("utf-8"))
    problems = []
    for h, t, name in ((ha, ta, "a"), (hb, tb, "b")):
        if vr.view_fingerprint(final_view(h, t)).hex() != case["view_fingerprint"]:
            problems.append(f"{name}: final view fingerprint")
        if table_fingerprint(h, t).hex() != case[f"{name}_table_fingerprint"]:
            problems.append(f"{name}: table fingerprint")
    return problems


def check_order_independent(case: dict) -> List[str]:
    (ha, ta), (hb, tb) = load(case["a"].encode("utf-8")), load(case["b"].encode("utf-8"))
    problems = []
    if ha.changes == hb.changes:
        problems.append("the two histories have the same changes")
    for h, t, name in ((ha, ta, "a"), (hb, tb, "b")):
        if h.mode.policy != RANKED_POLICY:
            problems.append(f"{name}: not a ranked table")
        if vr.view_fingerprint(final_view(h, t)).hex() != case["view_fingerprint"]:
            problems.append(f"{name}: final view fingerprint")
        if table_fingerprint(h, t).hex() != case["table_fingerprint"]:
            problems.append(f"{name}: table fingerprint")
    return problems


def check_equivalent(case: dict) -> List[str]:
    h, t = load(case["document"].encode("utf-8"))
    problems = []
    if canonical(h) != case["canonical"]:
        problems.append("canonical form")
    if table_fingerprint(h, t).hex() != case["table_fingerprint"]:
        problems.append("table fingerprint")
    return problems


def check_invalid(case: dict) -> List[str]:
    try:
        load(vr.document(case), vr.case_seed(case))
        return ["accepted"]
    except vr.ViewError as raised:            # Error, or InvalidJson from the shared JSON rules
        e = raised
    got = vr.error_members(e)
    if e.name == "InvalidSlotCount":
        got["value"] = str(getattr(e, "value", None))
    want = {k: v for k, v in case.items() if k not in ("name", "document", "document_hex", "seed")}
    return [] if got == want else [f"got {got}, expected {want}"]


def run(vectors: dict) -> Tuple[int, List[Tuple[str, List[str]]]]:
    assert vectors["format"] == FORMAT
    assert vectors["max_changes"] == MAX_CHANGES
    checks = []
    for section, check in (("valid", check_valid), ("same_membership", check_same_membership),
                           ("order_independent", check_order_independent),
                           ("equivalent", check_equivalent), ("invalid", check_invalid)):
        checks += [(f"{section}/{c['name']}", functools.partial(check, c)) for c in vectors[section]]
    return hrw.run_checks(checks)


if __name__ == "__main__":
    sys.exit(hrw.report(sys.argv, "slot-history-v1.json", run))
