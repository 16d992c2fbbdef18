#!/usr/bin/env python3
"""Reference implementation of the domains-v1 policy, written from conformance/POLICIES.md
("domains (v1)") alone; hrw-v1 itself comes from hrw_reference.py.

It computes each key's whole order by the recursive definition of POLICIES.md, with no shortcut.

    python3 conformance/reference/policy_domains.py conformance/policies/domains.json

recomputes every case and prints `N passed, M failed` on its last line (exit status 0 only when
nothing failed).
"""

from __future__ import annotations

import functools
import sys
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

import hrw_reference as hrw

POLICY = "domains-v1"
DOMAIN_PREFIX = b"hrw-v1:domain"
SEPARATOR = b"/"


class PolicyError(Exception):
    def __init__(self, name: str, **fields):
        super().__init__(name)
        self.name = name
        self.fields = fields


class Policy(NamedTuple):
    ms: hrw.Membership
    level: int
    depth: int
    paths: List[List[bytes]]   # levels of each node's path


def domain_digest(seed: bytes, prefix: bytes) -> int:
    k0, k1 = hrw.seed_keys(seed)
    return hrw.siphash13(k0, k1, DOMAIN_PREFIX + hrw.u64le(len(prefix)) + prefix)


def build(seed: bytes, nodes: Sequence[hrw.Node], level: int) -> Policy:
    ms = hrw.build_membership(seed, nodes)           # SPEC.md 7 errors first
    if any(n.domain is None for n in nodes):
        raise PolicyError("InvalidDomains", index=next(i for i, n in enumerate(nodes)
                                                       if n.domain is None), reason="missing")
    paths = [n.domain.split(SEPARATOR) for n in nodes]
    for i, p in enumerate(paths):
        if any(part == b"" for part in p):
            raise PolicyError("InvalidDomains", index=i, reason="empty_level")
    depth = len(paths[0])
    for i, p in enumerate(paths):
        if len(p) != depth:
            raise PolicyError("InvalidDomains", index=i, reason="depth_mismatch")
    if level >= depth:
        raise PolicyError("InvalidDomains", index=None, reason="level_out_of_range")
    total = 0
    for i, w in enumerate(ms.weights):
        total += w
        if total >= 2**64:
            raise PolicyError("InvalidDomains", index=i, reason="weight_overflow")
    return Policy(ms, level, depth, paths)


def prefix(policy: Policy, node: int, level: int) -> bytes:
    return SEPARATOR.join(policy.paths[node][:level + 1])


def sibling_order(policy: Policy, key: bytes, domains: Dict[bytes, List[int]]) -> List[bytes]:
    """Domains (prefix -> their selectable nodes) by SPEC.md 5.3 with W_d as the weight."""
    kd = hrw.key_digest(policy.ms.seed, key)
    names = [p for p, members in domains.items()
             if sum(policy.ms.weights[i] for i in members) > 0]
    scores = [hrw.score(kd, domain_digest(policy.ms.seed, p)) for p in names]
    weights = [sum(policy.ms.weights[i] for i in domains[p]) for p in names]
    # Prefixes of one level are distinct, so they break ties exactly as ids do.
    order = hrw.weighted_order(scores, names, weights, list(range(len(names))))
    return [names[i] for i in order]


def interleave(lists: List[List[int]]) -> List[int]:
    out: List[int] = []
    for r in range(max((len(x) for x in lists), default=0)):
        out.extend(x[r] for x in lists if r < len(x))
    return out


def group(policy: Policy, members: List[int], level: int) -> Dict[bytes, List[int]]:
    out: Dict[bytes, List[int]] = {}
    for i in members:
        out.setdefault(prefix(policy, i, level), []).append(i)
    return out


def order_of(policy: Policy, key: bytes, members: List[int], level: int) -> List[int]:
    """The order of the domain of `level` whose selectable nodes are `members`."""
    if level == policy.depth - 1:
        sub = hrw.Membership(policy.ms.seed, [policy.ms.ids[i] for i in members],
                             [policy.ms.weights[i] for i in members],
                             [None] * len(members), [policy.ms.digests[i] for i in members])
        return [members[j] for j in hrw.ranking(sub, key)]
    children = group(policy, members, level + 1)
    return interleave([order_of(policy, key, children[p], level + 1)
                       for p in sibling_order(policy, key, children)])


def order(policy: Policy, key: bytes) -> List[int]:
    selectable = [i for i, w in enumerate(policy.ms.weights) if w > 0]
    domains = group(policy, selectable, policy.level)
    return interleave([order_of(policy, key, domains[p], policy.level)
                       for p in sibling_order(policy, key, domains)])


def replicas(policy: Policy, key: bytes, k: int) -> List[int]:
    available = sum(1 for w in policy.ms.weights if w > 0)
    if k == 0 or k > available:
        raise PolicyError("InvalidReplicaCount", requested=k, available=available)
    return order(policy, key)[:k]


def owner(policy: Policy, key: bytes) -> int:
    return order(policy, key)[0]


# --------------------------------------------------------------------------------------------
# Reading policies/domains.json
# --------------------------------------------------------------------------------------------

def text(obj: dict, name: str) -> Optional[bytes]:
    if name in obj:
        return obj[name].encode("utf-8")
    if name + "_hex" in obj:
        return bytes.fromhex(obj[name + "_hex"])
    return None


def parse_nodes(case: dict) -> List[hrw.Node]:
    return [hrw.Node(text(n, "id"), hrw.parse_weight(n.get("weight", 1.0)), text(n, "domain"))
            for n in case["nodes"]]


def seed_of(case: dict, default_seed: bytes) -> bytes:
    return bytes.fromhex(case["seed"]) if "seed" in case else default_seed


def check_case(case: dict, default_seed: bytes) -> List[str]:
    problems = []
    policy = build(seed_of(case, default_seed), parse_nodes(case), case["level"])
    selectable = [i for i, w in enumerate(policy.ms.weights) if w > 0]
    domain_count = len({prefix(policy, i, policy.level) for i in selectable})
    for field, got in (("domain_count", domain_count), ("selectable", len(selectable))):
        if case[field] != got:
            problems.append(f"{field}: expected {case[field]}, got {got}")
    k_max = case["k_max"]
    for lookup in case["lookups"]:
        key = text(lookup, "key")
        full = order(policy, key)
        if lookup["owner"] != full[0]:
            problems.append(f"key {key!r}: owner expected {lookup['owner']}, got {full[0]}")
        if lookup["replicas"] != full[:k_max]:
            problems.append(f"key {key!r}: replicas expected {lookup['replicas']}, "
                            f"got {full[:k_max]}")
    return problems


def check_error_case(case: dict, default_seed: bytes) -> List[str]:
    want = {"error": case["error"]}
    for field in ("index", "reason", "requested", "available"):
        if field in case:
            want[field] = case[field]
    try:
        policy = build(seed_of(case, default_seed), parse_nodes(case), case["level"])
        if "k" in case:
            replicas(policy, text(case, "key"), case["k"])
        got: Dict[str, object] = {"error": "no error"}
    except PolicyError as err:
        got = {"error": err.name, **err.fields}
    except hrw.HrwError as err:
        got = {"error": err.name}
    got = {f: got.get(f) for f in want}
    return [] if got == want else [f"expected {want}, got {got}"]


def run(vectors: dict) -> Tuple[int, List[Tuple[str, List[str]]]]:
    if vectors.get("policy") != POLICY:
        raise SystemExit(f"not a {POLICY} vectors file: policy = {vectors.get('policy')!r}")
    default_seed = bytes.fromhex(vectors["default_seed"])
    checks = [(c["name"], functools.partial(check_case, c, default_seed))
              for c in vectors["cases"]]
    checks += [(c["name"], functools.partial(check_error_case, c, default_seed))
               for c in vectors["error_cases"]]
    return hrw.run_checks(checks)


if __name__ == "__main__":
    sys.exit(hrw.report(sys.argv, "domains.json", run))
