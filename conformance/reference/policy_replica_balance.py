#!/usr/bin/env python3
"""Reference implementation of replica-balance (tag replica-balance-v2), written from
conformance/POLICIES.md alone.

Scores, draws and the weighted order come from hrw_reference (SPEC.md); the solver is rerun from
its description. Python floats are binary64 with correctly rounded +, -, *, /, int -> float
rounds half to even, and math.ldexp scales exactly, which is all the solver uses.

    python3 conformance/reference/policy_replica_balance.py conformance/policies/replica-balance-v2.json

recomputes every case and prints `N passed, M failed` on its last line (exit status 0 only when
nothing failed).
"""

from __future__ import annotations

import math
import os
import sys
from typing import List, Sequence, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hrw_reference as hrw  # noqa: E402

POLICY = "replica-balance-v2"
MASK = 2**64 - 1
MAX_ITERATIONS = 64
TOLERANCE = 2.0**-20
LOG2E = float.fromhex("0x1.71547652b82fep+0")
LN2 = float.fromhex("0x1.62e42fefa39efp-1")
SQRT2 = float.fromhex("0x1.6a09e667f3bcdp+0")
STEP = LN2 / 2.0
FLOOR = 2.0**-64
STEP_CAP = 2.0**32
INVERSE_FACTORIALS = [1.0 / float(math.factorial(q)) for q in range(18)]


class PolicyError(Exception):
    def __init__(self, name: str, index=None):
        super().__init__(name)
        self.name = name
        self.index = index


def second_digest(kd: int) -> int:
    z = (kd + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def exp_neg(x: float) -> float:
    if x > 700.0:
        return 0.0
    t = x * LOG2E
    n = math.floor(t)
    u = (t - n) * LN2
    r = INVERSE_FACTORIALS[17]
    for q in range(16, -1, -1):
        r = INVERSE_FACTORIALS[q] - u * r
    return math.ldexp(r, -n)


def exponent(x: float) -> int:
    """floor(log2(x)) of a positive binary64."""
    return math.frexp(x)[1] - 1


def times_factor(c0: List[float], c1: List[float], a: float, omega: float):
    """(c0 + t c1) * (a + (1 - a) z + omega t), truncated to t^1 and to len(c0) powers of z."""
    b = 1.0 - a
    m = len(c0)
    n0 = [a * c0[0]] + [a * c0[d] + b * c0[d - 1] for d in range(1, m)]
    n1 = [a * c1[0] + omega * c0[0]] + [
        (a * c1[d] + b * c1[d - 1]) + omega * c0[d] for d in range(1, m)]
    return n0, n1


def cumulative(c: Sequence[float]) -> List[float]:
    out, s = [], 0.0
    for x in c:
        s = s + x
        out.append(s)
    return out


# Solver: the most work one solve may do; an evaluation costs G * n * (k + 4).
MAX_WORK = 2**28


def work(v: Sequence[float], k: int) -> int:
    rates = 0.0
    for x in v:
        rates = rates + x
    lo = -exponent(rates) - 32
    hi = 6 - exponent(min(v))
    return (2 * (hi - lo) + 1) * len(v) * (k + 4)


def inclusion(v: Sequence[float], omega: Sequence[float], k: int) -> List[float]:
    n, m = len(v), k - 1
    rates = 0.0
    for x in v:
        rates = rates + x
    lo = -exponent(rates) - 32
    hi = 6 - exponent(min(v))
    acc = [0.0] * n
    for j in range(2 * (hi - lo) + 1):
        y = math.ldexp(1.0 if j % 2 == 0 else SQRT2, lo + j // 2)
        a = [exp_neg(vi * y) for vi in v]
        prefix = []
        c0, c1 = [1.0] + [0.0] * (m - 1), [0.0] * m
        for i in range(n):
            prefix.append((c0, c1))
            c0, c1 = times_factor(c0, c1, a[i], omega[i])
        c0, c1 = [1.0] + [0.0] * (m - 1), [0.0] * m
        for i in range(n - 1, -1, -1):
            l0, l1 = prefix[i]
            q0, q1 = cumulative(c0), cumulative(c1)
            fewer = 0.0
            for d in range(m):
                fewer = fewer + (l0[d] * q1[m - 1 - d] + l1[d] * q0[m - 1 - d])
            acc[i] = acc[i] + ((y * v[i]) * a[i]) * fewer
            c0, c1 = times_factor(c0, c1, a[i], omega[i])
    return [x * STEP for x in acc]


def check(w: Sequence[int], k: int) -> None:
    if k == 0:
        raise PolicyError("InvalidCount")
    s = sum(w)
    for i, wi in enumerate(w):
        if k * wi > s:
            raise PolicyError("InfeasibleReplicaWeights", i)


def solve(w: Sequence[int], k: int) -> Tuple[List[int], int]:
    """(adjusted fixed-point weights, iterations) of POLICIES.md, replica-balance, Solver."""
    check(w, k)
    if k == 1:
        return list(w), 0
    sel = [i for i, wi in enumerate(w) if wi]
    s = float(sum(w))
    omega = [float(w[i]) / s for i in sel]
    tau = [float(k - 1) * o for o in omega]
    wmax = max(w)
    v = [float(w[i]) / float(wmax) for i in sel]
    t = 0
    spent = work(v, k)
    if spent > MAX_WORK:
        raise PolicyError("ResultTooLarge")
    while True:
        p = inclusion(v, omega, k)
        t += 1
        if t == MAX_ITERATIONS or all(abs(pi - ti) <= ti * TOLERANCE for pi, ti in zip(p, tau)):
            break
        x = [vi * (ti / pi if pi > ti / STEP_CAP else STEP_CAP) for vi, pi, ti in zip(v, p, tau)]
        top = max(x)
        nxt = [max(xi / top, FLOOR) for xi in x]
        if spent + work(nxt, k) > MAX_WORK:
            break
        spent += work(nxt, k)
        v = nxt
    out = [0] * len(w)
    for i, vi in zip(sel, v):
        out[i] = min(max(round(vi * float(wmax)), 1), wmax)   # round() of a float is half-even
    return out, t


def replicas(ms: hrw.Membership, adjusted: Sequence[int], k: int, key: bytes) -> List[int]:
    primary = hrw.owner(ms, key)
    kd2 = second_digest(hrw.key_digest(ms.seed, key))
    scores = [hrw.score(kd2, nd) for nd in ms.digests]
    order = hrw.weighted_order(scores, ms.ids, list(adjusted),
                               [i for i, v in enumerate(adjusted) if v])
    return [primary] + [i for i in order if i != primary][:k - 1]


def run(vectors: dict) -> Tuple[int, List[Tuple[str, List[str]]]]:
    if vectors.get("policy") != POLICY:
        return 0, [("file", [f"policy {vectors.get('policy')!r} is not {POLICY}"])]
    seed = bytes.fromhex(vectors["default_seed"])
    passed, failed = 0, []

    def record(name, problems):
        nonlocal passed
        if problems:
            failed.append((name, problems))
        else:
            passed += 1

    for case in vectors["second_digests"]:
        kd = hrw.key_digest(seed, case["key"].encode())
        got = (str(kd), str(second_digest(kd)))
        want = (case["key_digest"], case["second_digest"])
        record(f"second digest of {case['key']!r}",
               [] if got == want else [f"expected {want}, got {got}"])
    for case in vectors["exp_neg"]:
        x = float.fromhex(hex_float(case["x"]))
        got = exp_neg(x)
        want = float.fromhex(hex_float(case["exp_neg"]))
        record(f"exp_neg({x!r})",
               [] if got == want and math.copysign(1, got) == math.copysign(1, want)
               else [f"expected {want!r}, got {got!r}"])
    for case in vectors["cases"]:
        ms = hrw.build_membership(seed, hrw.parse_nodes(case))
        problems = []
        k = case["k"]
        adjusted, t = solve(ms.weights, k)
        want = [int(x) for x in case["expected"]["adjusted_fixed"]]
        if adjusted != want:
            problems.append(f"adjusted weights: expected {want}, got {adjusted}")
        if t != case["expected"]["iterations"]:
            problems.append(f"iterations: expected {case['expected']['iterations']}, got {t}")
        for r in case["expected"]["replicas"]:
            got = replicas(ms, want, k, r["key"].encode())
            if got != r["replicas"]:
                problems.append(f"key {r['key']!r}: expected {r['replicas']}, got {got}")
        record(case["name"], problems)
    for case in vectors["error_cases"]:
        ms = hrw.build_membership(seed, hrw.parse_nodes(case))
        try:
            solve(ms.weights, case["k"])
            got = (None, None)
        except PolicyError as e:
            got = (e.name, e.index)
        want = (case["error"], case.get("index"))
        record(case["name"], [] if got == want else [f"expected {want}, got {got}"])
    return passed, failed


def hex_float(bits: str) -> str:
    """The 16 hex digits of a binary64's bits as float.fromhex text."""
    import struct
    return struct.unpack("<d", struct.pack("<Q", int(bits, 16)))[0].hex()


if __name__ == "__main__":
    sys.exit(hrw.report(sys.argv, "replica-balance-v2.json", run))
