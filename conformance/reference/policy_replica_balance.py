#!/usr/bin/env python3
"""Reference implementation of replica-balance-v1, written from conformance/POLICIES.md alone.

Scores, draws and the weighted order come from hrw_reference (SPEC.md); the solver is rerun from
its description: SplitMix64 sample digests, binary64 steps (Python floats are binary64 with
correctly rounded arithmetic, and int -> float conversion rounds half to even).

    python3 conformance/reference/policy_replica_balance.py conformance/policies/replica-balance.json

recomputes every case and prints `N passed, M failed` on its last line (exit status 0 only when
nothing failed).
"""

from __future__ import annotations

import functools
import os
import sys
from typing import List, Sequence, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hrw_reference as hrw  # noqa: E402

POLICY = "replica-balance-v1"
MASK = 2**64 - 1
MAX_ITERATIONS = 24
TOLERANCE = 0.001


class PolicyError(Exception):
    def __init__(self, name: str, index=None):
        super().__init__(name)
        self.name = name
        self.index = index


def sample_digests(count: int) -> List[int]:
    x = 0x7265706C69636173
    out = []
    for _ in range(count):
        x = (x + 0x9E3779B97F4A7C15) & MASK
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        out.append(z ^ (z >> 31))
    return out


def order(scores: Sequence[int], draws: Sequence[int], ids: Sequence[bytes],
          weights: Sequence[int]) -> List[int]:
    """SPEC.md 5.3 order of the nodes with a weight above zero, from precomputed draws."""
    def compare(a: int, b: int) -> int:
        lhs, rhs = draws[a] * weights[b], draws[b] * weights[a]
        if lhs != rhs:
            return -1 if lhs < rhs else 1
        if scores[a] != scores[b]:
            return -1 if scores[a] > scores[b] else 1
        return -1 if ids[a] < ids[b] else 1

    return sorted((i for i, w in enumerate(weights) if w), key=functools.cmp_to_key(compare))


def replica_set(primary: int, secondary_order: Sequence[int], k: int) -> List[int]:
    return [primary] + [i for i in secondary_order if i != primary][:k - 1]


def round_half_even(x: float) -> int:
    return round(x)                                    # round() of a float is half-even


def solve(ms: hrw.Membership, k: int, m: int) -> Tuple[List[int], int]:
    """(adjusted fixed-point weights, iterations) of POLICIES.md, replica-balance-v1, Solver."""
    w = ms.weights
    if k == 0 or not 8 <= m <= 22:
        raise PolicyError("InvalidCount")
    s = sum(w)
    for i, wi in enumerate(w):
        if k * wi > s:
            raise PolicyError("InfeasibleReplicaWeights", i)
    if k == 1:
        return list(w), 0
    count = 2**m
    samples = []
    for d in sample_digests(count):
        scores = [hrw.score(d, nd) for nd in ms.digests]
        draws = [hrw.draw(x) for x in scores]
        samples.append((scores, draws, order(scores, draws, ms.ids, w)[0]))
    tau = [(float(k - 1) * (float(wi) / float(s))) * float(count) for wi in w]
    wmax = max(w)
    v = list(w)
    t = 0
    while True:
        c = [0] * len(w)
        for scores, draws, primary in samples:
            for i in replica_set(primary, order(scores, draws, ms.ids, v), k)[1:]:
                c[i] += 1
        t += 1
        if t == MAX_ITERATIONS or all(
                abs(float(ci) - ti) <= ti * TOLERANCE for ci, ti, wi in zip(c, tau, w) if wi):
            return v, t
        x = [0.0 if wi == 0 else float(vi) * (ti / float(ci)) if ci else float(vi) * 2.0
             for vi, ci, ti, wi in zip(v, c, tau, w)]
        scale = float(wmax) / max(x)
        v = [0 if wi == 0 else min(max(round_half_even(xi * scale), 1), wmax)
             for xi, wi in zip(x, w)]


def replicas(ms: hrw.Membership, adjusted: Sequence[int], k: int, key: bytes) -> List[int]:
    secondary = ms._replace(weights=list(adjusted))
    return replica_set(hrw.owner(ms, key), hrw.ranking(secondary, key), k)


def run(vectors: dict) -> Tuple[int, List[Tuple[str, List[str]]]]:
    if vectors.get("policy") != POLICY:
        return 0, [("file", [f"policy {vectors.get('policy')!r} is not {POLICY}"])]
    seed = bytes.fromhex(vectors["default_seed"])
    passed, failed = 0, []
    for case in vectors["cases"]:
        ms = hrw.build_membership(seed, hrw.parse_nodes(case))
        problems = []
        k = case["k"]
        adjusted, t = solve(ms, k, case["samples_log2"])
        want = [int(x) for x in case["expected"]["adjusted_fixed"]]
        if adjusted != want:
            problems.append(f"adjusted weights: expected {want}, got {adjusted}")
        if t != case["expected"]["iterations"]:
            problems.append(f"iterations: expected {case['expected']['iterations']}, got {t}")
        for r in case["expected"]["replicas"]:
            got = replicas(ms, want, k, r["key"].encode())
            if got != r["replicas"]:
                problems.append(f"key {r['key']!r}: expected {r['replicas']}, got {got}")
        (failed.append((case["name"], problems)) if problems else None)
        passed += not problems
    for case in vectors["error_cases"]:
        ms = hrw.build_membership(seed, hrw.parse_nodes(case))
        try:
            solve(ms, case["k"], case["samples_log2"])
            got = (None, None)
        except PolicyError as e:
            got = (e.name, e.index)
        want = (case["error"], case.get("index"))
        if got == want:
            passed += 1
        else:
            failed.append((case["name"], [f"expected {want}, got {got}"]))
    return passed, failed


def main(argv: Sequence[str]) -> int:
    return hrw.report(argv, "replica-balance.json", run)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
