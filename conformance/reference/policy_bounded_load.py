#!/usr/bin/env python3
"""Reference implementation of bounded-load-v1, written from conformance/POLICIES.md alone.

Rankings come from hrw_reference (SPEC.md); the caps are computed with Python integers, as
ceilings of exact fractions (not with the cross-multiplied test an implementation may use).

    python3 conformance/reference/policy_bounded_load.py conformance/policies/bounded-load.json
    python3 conformance/reference/policy_bounded_load.py conformance/policies/bounded-load-boundaries.json

recomputes every case and prints `N passed, M failed` on its last line (exit status 0 only when
nothing failed).
"""

from __future__ import annotations

import os
import sys
from fractions import Fraction
from typing import List, Sequence, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hrw_reference as hrw  # noqa: E402

POLICY = "bounded-load-v1"
U64_MAX = 2**64 - 1


class PolicyError(Exception):
    def __init__(self, name: str):
        super().__init__(name)
        self.name = name


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def factor_from_float(c: float) -> Tuple[int, int]:
    """(num, den) of a binary64 factor: den = 10^6, num = round_half_even(c * 10^6) exactly."""
    if c != c or c in (float("inf"), float("-inf")) or c < 1:
        raise PolicyError("InvalidBalanceFactor")
    num = round(Fraction(c) * 10**6)          # round() of a Fraction is half-even
    if num >= 2**32:
        raise PolicyError("InvalidBalanceFactor")
    return num, 10**6


def check_factor(num: int, den: int) -> None:
    if not (1 <= den <= num < 2**32):
        raise PolicyError("InvalidBalanceFactor")


# The formulas of POLICIES.md, one function each, so that the planted mistakes of
# test_policy_mutations.py can replace one of them at a time.

def load_total(ms: hrw.Membership, loads: Sequence[int]) -> int:
    """L: every node's load, draining nodes included."""
    return sum(loads)


def online_slots(total: int, num: int, den: int) -> int:
    return ceil_div((total + 1) * num, den)


def online_cap(slots: int, w: int, s: int) -> int:
    return ceil_div(slots * w, s)


def batch_cap(num: int, den: int, k: int, w: int, s: int) -> int:
    return ceil_div(num * k * w, den * s)


def accepts(load: int, cap: int) -> bool:
    return load < cap


def share_weights(ms: hrw.Membership) -> List[int]:
    """W_i, the fixed-point weights (SPEC.md 5.1) the shares are taken of."""
    return list(ms.weights)


def online_owner(ms: hrw.Membership, num: int, den: int, key: bytes,
                 loads: Sequence[int]) -> Tuple[int, int]:
    """(owner, position in the key's ranking) of an online lookup."""
    check_factor(num, den)
    if len(loads) != len(ms.ids):
        raise PolicyError("LengthMismatch")
    total = load_total(ms, loads)
    if total > U64_MAX:
        raise PolicyError("LoadOverflow")
    weights = share_weights(ms)
    s = sum(weights)
    slots = online_slots(total, num, den)
    for position, i in enumerate(hrw.ranking(ms, key)):
        if accepts(loads[i], online_cap(slots, weights[i], s)):
            return i, position
    raise AssertionError("POLICIES.md proves some node accepts")


def batch_owners(ms: hrw.Membership, num: int, den: int, keys: Sequence[bytes]) -> List[int]:
    check_factor(num, den)
    weights = share_weights(ms)
    s = sum(weights)
    caps = [batch_cap(num, den, len(keys), w, s) for w in weights]
    counts = [0] * len(ms.ids)
    owners = []
    for key in keys:
        chosen = next((i for i in hrw.ranking(ms, key) if accepts(counts[i], caps[i])), None)
        if chosen is None:
            raise AssertionError("POLICIES.md proves some node accepts")
        counts[chosen] += 1
        owners.append(chosen)
    return owners


def membership(case: dict, default_seed: bytes) -> hrw.Membership:
    return hrw.build_membership(default_seed, hrw.parse_nodes(case))


def run(vectors: dict) -> Tuple[int, List[Tuple[str, List[str]]]]:
    if vectors.get("policy") != POLICY:
        return 0, [("file", [f"policy {vectors.get('policy')!r} is not {POLICY}"])]
    seed = bytes.fromhex(vectors["default_seed"])
    passed, failed = 0, []

    def record(name: str, problems: List[str]) -> None:
        nonlocal passed
        if problems:
            failed.append((name, problems))
        else:
            passed += 1

    for case in vectors["online"]:
        ms = membership(case, seed)
        loads = [int(x) for x in case["loads"]]
        f = case["factor"]
        try:
            got = online_owner(ms, f["num"], f["den"], bytes.fromhex(case["key"]), loads)
        except (PolicyError, AssertionError) as e:
            got = (f"{type(e).__name__} {e}", None)
        want = (case["expected"]["owner"], case["expected"]["position"])
        record(case["name"], [] if got == want else [f"expected {want}, got {got}"])
    for case in vectors["batch"]:
        ms = membership(case, seed)
        keys = [(case["key_prefix"] + str(i)).encode() for i in range(case["key_count"])]
        f = case["factor"]
        try:
            owners = batch_owners(ms, f["num"], f["den"], keys)
        except (PolicyError, AssertionError) as e:
            record(case["name"], [f"{type(e).__name__} {e}"])
            continue
        counts = [owners.count(i) for i in range(len(ms.ids))]
        problems = []
        if owners != case["expected"]["owners"]:
            problems.append("owners differ")
        if counts != case["expected"]["counts"]:
            problems.append(f"counts: expected {case['expected']['counts']}, got {counts}")
        record(case["name"], problems)
    for case in vectors["factor_cases"]:
        c = hrw.parse_weight(case["factor"])
        try:
            got = {"num": factor_from_float(c)[0], "den": 10**6}
        except PolicyError as e:
            got = {"error": e.name}
        want = {k: v for k, v in case.items() if k != "factor"}
        record(f"factor {case['factor']}", [] if got == want else [f"expected {want}, got {got}"])
    for case in vectors["error_cases"]:
        ms = membership(case, seed)
        f = case["factor"]
        try:
            online_owner(ms, f["num"], f["den"], bytes.fromhex(case["key"]),
                         [int(x) for x in case["loads"]])
            got = None
        except PolicyError as e:
            got = e.name
        record(case["name"], [] if got == case["error"] else
               [f"expected {case['error']}, got {got}"])
    return passed, failed


if __name__ == "__main__":
    # Any bounded-load-v1 vectors file: bounded-load.json or bounded-load-boundaries.json.
    sys.exit(hrw.report(sys.argv, "bounded-load.json", run))
