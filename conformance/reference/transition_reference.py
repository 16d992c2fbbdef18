#!/usr/bin/env python3
"""Independent reference for conformance/transitions.json (VIEW.md 6): expected movement between
memberships of different seeds, route_top, and the per-node rows of diffs and replica diffs,
written from VIEW.md and SPEC.md alone on top of the view and hrw-v1 references.

    python3 conformance/reference/transition_reference.py conformance/transitions.json
"""

from __future__ import annotations

import functools
import os
import sys
from typing import Dict, List, Optional, Sequence, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hrw_reference as hrw  # noqa: E402
import view_reference as views  # noqa: E402

PARTS = ["movement", "route_sets", "diff_row_indexes", "diff_row_moves", "replica_diffs"]


def membership(v: views.View) -> hrw.Membership:
    nodes = [hrw.Node(i, w / 2**32, d) for i, w, d in zip(v.ids, v.weights, v.domains)]
    return hrw.build_membership(v.seed, nodes)


def pairs(old: views.View, new: views.View) -> List[Tuple[bytes, int, int]]:
    """(id, W, V) of every id of either side, 0 where absent: old ids in build order, then the
    new-only ones (the order is the caller's to fix)."""
    w = dict(zip(old.ids, old.weights))
    v = dict(zip(new.ids, new.weights))
    ids = old.ids + [i for i in new.ids if i not in w]
    return [(i, w.get(i, 0), v.get(i, 0)) for i in ids]


def expected_moved_two_seeds(p: Sequence[Tuple[bytes, int, int]]) -> float:
    """VIEW.md 6.1, last paragraph: exact integer sums, then one binary64 operation at a time,
    over ids in ascending bytewise order."""
    sw, sv = float(sum(x[1] for x in p)), float(sum(x[2] for x in p))
    stay = 0.0
    for _, w, v in sorted(p):
        stay += (float(w) / sw) * (float(v) / sv)
    return max(0.0, 1.0 - stay)


def expected_moved(old: views.View, new: views.View) -> float:
    p = pairs(old, new)
    return views.expected_moved(p) if old.seed == new.seed else expected_moved_two_seeds(p)


class Transition:
    def __init__(self, old: views.View, new: views.View):
        self.old, self.new = membership(old), membership(new)
        new_index = {i: j for j, i in enumerate(new.ids)}
        old_index = {i: j for j, i in enumerate(old.ids)}
        self.old_to_new = [new_index.get(i) for i in old.ids]
        self.new_to_old = [old_index.get(i) for i in new.ids]

    def route_top(self, key: bytes, k: int) -> Dict[str, List[int]]:
        before = hrw.replicas(self.old, key, k)
        after = hrw.replicas(self.new, key, k)
        before_ids = {self.old.ids[i] for i in before}
        after_ids = {self.new.ids[j] for j in after}
        return {
            "before": before,
            "after": after,
            # In the order each side's replicas took them.
            "add": [j for j in after if self.new.ids[j] not in before_ids],
            "drop": [i for i in before if self.old.ids[i] not in after_ids],
        }

    def diff(self, keys: Sequence[bytes], k: int) -> dict:
        n_old, n_new = len(self.old.ids), len(self.new.ids)
        before, dropped = [0] * n_old, [0] * n_old
        after, added = [0] * n_new, [0] * n_new
        flows: Dict[Tuple[int, int], int] = {}
        moved = 0
        for key in keys:
            r = self.route_top(key, k)
            for i in r["before"]:
                before[i] += 1
            for j in r["after"]:
                after[j] += 1
            for i in r["drop"]:
                dropped[i] += 1
            for j in r["add"]:
                added[j] += 1
            if r["add"] or r["drop"]:
                moved += 1
                if k == 1:
                    pair = (r["before"][0], r["after"][0])
                    flows[pair] = flows.get(pair, 0) + 1
        rows = []
        for i in range(n_old):
            j = self.old_to_new[i]
            rows.append(self.row(self.old.ids[i], i, j, before[i], 0 if j is None else after[j],
                                 0 if j is None else added[j], dropped[i]))
        for j in range(n_new):
            if self.new_to_old[j] is None:
                rows.append(self.row(self.new.ids[j], None, j, 0, after[j], added[j], 0))
        out = {"keys_counted": len(keys), "moved": moved, "nodes": rows}
        if k == 1:
            out["flows"] = [[f, t, c] for (f, t), c in sorted(flows.items())]
        else:
            out["copies_added"], out["copies_dropped"] = sum(added), sum(dropped)
        return out

    @staticmethod
    def row(node_id: bytes, old: Optional[int], new: Optional[int], before: int, after: int,
            added: int, dropped: int) -> dict:
        return {"id": node_id.decode("utf-8"), "old_index": old, "new_index": new, "before": before,
                "after": after, "added": added, "dropped": dropped}


def seed(case: dict, member: str) -> bytes:
    return bytes.fromhex(case[member]) if member in case else hrw.DEFAULT_SEED


def sides(case: dict) -> Tuple[views.View, views.View]:
    return (views.load(case["from"].encode("utf-8"), seed(case, "from_seed")),
            views.load(case["to"].encode("utf-8"), seed(case, "to_seed")))


def check_movement(case: dict) -> List[str]:
    old, new = sides(case)
    problems = []
    if old.seed == new.seed:
        problems.append("one seed on both sides")
    got = expected_moved(old, new)
    if got != case["expected_moved"]:
        problems.append(f"expected_moved {got!r}")
    got = views.optimum(pairs(old, new))
    if got != case["optimum"]:
        problems.append(f"optimum {got!r}")
    return problems


def check_routes(case: dict) -> List[str]:
    t = Transition(*sides(case))
    problems = []
    for r in case["routes"]:
        got = t.route_top(r["key"].encode("utf-8"), case["k"])
        want = {m: r[m] for m in ("before", "after", "add", "drop")}
        if got != want:
            problems.append(f"{r['key']!r}: {got}")
    return problems


def check_diff(case: dict) -> List[str]:
    t = Transition(*sides(case))
    keys = [b"key-%d" % i for i in range(case["keys"])]
    got = t.diff(keys, case["k"])
    return [f"{m}: {got[m]!r}" for m in got if got[m] != case[m]]


def check_not_offered(data: dict) -> List[str]:
    problems = [] if "rust" in data["not_offered"] else ["no rust entry"]
    for language, skipped in data["not_offered"].items():
        if language != "_comment" and not set(skipped) <= set(PARTS):
            problems.append(f"{language}: unknown parts {sorted(set(skipped) - set(PARTS))}")
    return problems


def run(data: dict) -> Tuple[int, hrw.Failures]:
    checks = [("not_offered", functools.partial(check_not_offered, data))]
    for section, check in (("movement", check_movement), ("routes", check_routes),
                           ("diffs", check_diff)):
        checks += [(f"{section}/{c['name']}", functools.partial(check, c)) for c in data[section]]
    return hrw.run_checks(checks)


if __name__ == "__main__":
    sys.exit(hrw.report(sys.argv, "transitions.json", run))
