"""What vectors-edge.json is worth: plausible mistakes, planted in the reference implementation,
each of which must fail it.

    python3 -m unittest discover -s conformance/reference -p "test_mutations.py"

Each mutation replaces one function of hrw_reference with a copy that has one mistake in it.
The test asserts that the mutated reference fails vectors-edge.json, and records which mistakes
vectors.json alone lets through (`PASS_VECTORS_JSON`): the gaps the edge file exists to close.
"""

import contextlib
import functools
import math
import os
import sys
import unittest
from fractions import Fraction
from typing import Callable, Dict, Optional, Sequence
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import hrw_reference as ref  # noqa: E402
from vectors_file import load  # noqa: E402


EDGE = load("vectors-edge.json")
VECTORS = load("vectors.json")


# --------------------------------------------------------------------------------------------
# Mistakes in the weighted order (SPEC.md 5.3)
# --------------------------------------------------------------------------------------------

Compare = Callable[[int, int, Sequence[int], Sequence[bytes], Sequence[int], Dict[int, int]], int]


def order_with(compare: Compare):
    """A weighted_order whose comparison is `compare`."""

    def weighted_order(scores, ids, weights, candidates):
        draws = {i: ref.draw(scores[i]) for i in candidates}
        return sorted(candidates, key=functools.cmp_to_key(
            lambda a, b: compare(a, b, scores, ids, weights, draws)))

    return weighted_order


def by_score_then_id(a, b, scores, ids):
    if scores[a] != scores[b]:
        return -1 if scores[a] > scores[b] else 1
    return -1 if ids[a] < ids[b] else 1


def exact_then(rest):
    """Rule 1 exactly as SPEC.md says, then `rest` for equal cross products."""

    def compare(a, b, scores, ids, weights, draws):
        lhs, rhs = draws[a] * weights[b], draws[b] * weights[a]
        if lhs != rhs:
            return -1 if lhs < rhs else 1
        return rest(a, b, scores, ids)

    return compare


def rule2_reversed(a, b, scores, ids):
    if scores[a] != scores[b]:
        return -1 if scores[a] < scores[b] else 1
    return -1 if ids[a] < ids[b] else 1


def rule2_skipped(a, b, scores, ids):
    return -1 if ids[a] < ids[b] else 1


def rule1_with(key):
    """Rule 1 computed as key(draw, weight) (smaller first), then rules 2 and 3."""

    def compare(a, b, scores, ids, weights, draws):
        x, y = key(draws[a], weights[a]), key(draws[b], weights[b])
        if x != y:
            return -1 if x < y else 1
        return by_score_then_id(a, b, scores, ids)

    return compare


def rule1_products_with(product):
    """Rule 1 as a comparison of product(D_a, W_b) with product(D_b, W_a)."""

    def compare(a, b, scores, ids, weights, draws):
        x, y = product(draws[a], weights[b]), product(draws[b], weights[a])
        if x != y:
            return -1 if x < y else 1
        return by_score_then_id(a, b, scores, ids)

    return compare


# --------------------------------------------------------------------------------------------
# Mistakes in rule 3, which also orders the unweighted ranking (SPEC.md 4)
# --------------------------------------------------------------------------------------------

def with_rule3(rule3) -> contextlib.ExitStack:
    def compare(a, b, scores, ids, weights, draws):
        lhs, rhs = draws[a] * weights[b], draws[b] * weights[a]
        if lhs != rhs:
            return -1 if lhs < rhs else 1
        if scores[a] != scores[b]:
            return -1 if scores[a] > scores[b] else 1
        return rule3(a, b, ids)

    def unweighted_order(scores, ids, candidates):
        return sorted(candidates, key=functools.cmp_to_key(
            lambda a, b: (-1 if scores[a] > scores[b] else 1) if scores[a] != scores[b]
            else rule3(a, b, ids)))

    stack = contextlib.ExitStack()
    stack.enter_context(mock.patch.object(ref, "weighted_order", order_with(compare)))
    stack.enter_context(mock.patch.object(ref, "unweighted_order", unweighted_order))
    return stack


# --------------------------------------------------------------------------------------------
# Mistakes in the fixed-point weight (SPEC.md 5.1)
# --------------------------------------------------------------------------------------------

def fixed_weight_rounding(rounding: Callable[[Fraction], int]):
    def fixed_weight(w: float) -> int:
        if math.isnan(w) or math.isinf(w) or w < 0:
            raise ref.HrwError("InvalidWeight", repr(w))
        exact = Fraction(w) * 2**32
        if exact >= 2**64:
            raise ref.HrwError("InvalidWeight", repr(w))
        fixed = rounding(exact)
        if w > 0 and fixed == 0:
            raise ref.HrwError("InvalidWeight", repr(w))
        return fixed

    return fixed_weight


# --------------------------------------------------------------------------------------------
# Mistakes in the draw (SPEC.md 5.2)
# --------------------------------------------------------------------------------------------

def draw_with(d_of: Callable[[int], int], parabola: bool = True):
    def draw(s: int) -> int:
        if s == ref.MASK64:
            return 0
        v = s + 1
        e = v.bit_length() - 1
        m = v << (63 - e)
        j = (m >> 55) & 0xFF
        d = d_of(m)
        p = ref.T[j] * 2**64 + (ref.T[j + 1] - ref.T[j]) * d * 2**32
        if parabola:
            p += ref.B[j] * d * (2**32 - d)
        return (63 - e) * 2**56 + (2**56 - (p >> 64))

    return draw


# --------------------------------------------------------------------------------------------
# Mistakes in replicas (SPEC.md 6)
# --------------------------------------------------------------------------------------------

def replicas_with(domain_of: Callable[[Optional[bytes], int], Optional[bytes]]):
    """replicas_from_ranking where a node's domain, for the first pass, is domain_of(domain, i)."""

    def replicas_from_ranking(ms, order, k):
        return ref.spread(order, k, [domain_of(d, i) for i, d in enumerate(ms.domains)])

    return replicas_from_ranking


# --------------------------------------------------------------------------------------------
# The mutations
# --------------------------------------------------------------------------------------------

def patch(name, replacement):
    return lambda: mock.patch.object(ref, name, replacement)


MUTATIONS: Dict[str, Callable[[], contextlib.AbstractContextManager]] = {
    # SPEC.md 5.3 rule 2: equal cross products, the lower score first.
    "tie rule 2 reversed": patch("weighted_order", order_with(exact_then(rule2_reversed))),
    # Rule 2 left out: equal cross products go straight to the ids.
    "tie rule 2 skipped": patch("weighted_order", order_with(exact_then(rule2_skipped))),
    # Rule 1 as D / W in binary64: the correctly rounded quotient of the exact integers.
    "D/W in binary64": patch("weighted_order", order_with(rule1_with(lambda d, w: d / w))),
    # The same, converting each factor to binary64 first (what C, Go or JavaScript would write).
    "D/W of binary64 factors": patch(
        "weighted_order", order_with(rule1_with(lambda d, w: float(d) / float(w)))),
    # Cross products in binary64.
    "D*W in binary64": patch(
        "weighted_order", order_with(rule1_products_with(lambda d, w: float(d) * float(w)))),
    # Cross products in 64-bit integers that wrap.
    "D*W mod 2^64": patch(
        "weighted_order", order_with(rule1_products_with(lambda d, w: (d * w) & ref.MASK64))),
    # SPEC.md 4 and 5.3 rule 3: equal scores, the larger id first.
    "tie rule 3 reversed": lambda: with_rule3(lambda a, b, ids: -1 if ids[a] > ids[b] else 1),
    # Rule 3 by position in the node list instead of by id.
    "tie rule 3 by position": lambda: with_rule3(lambda a, b, ids: -1 if a < b else 1),
    # SPEC.md 5.1: rounding half up, half down, or truncating instead of half to even.
    "weights rounded half up": patch(
        "fixed_weight", fixed_weight_rounding(lambda x: math.floor(x + Fraction(1, 2)))),
    "weights rounded half down": patch(
        "fixed_weight", fixed_weight_rounding(lambda x: math.ceil(x - Fraction(1, 2)))),
    "weights truncated": patch("fixed_weight", fixed_weight_rounding(math.floor)),
    # SPEC.md 5.2: 40 significant bits of s + 1 instead of 41 (the lowest bit of d dropped).
    "draw from 40 bits": patch("draw", draw_with(lambda m: ((m >> 24) & 0x7FFFFFFF) << 1)),
    # SPEC.md 5.2 without the curvature term B[j] d (2^32 - d).
    "draw without the parabola": patch(
        "draw", draw_with(lambda m: (m >> 23) & 0xFFFFFFFF, parabola=False)),
    # SPEC.md 6: nodes without a domain treated as one shared domain.
    "domainless nodes share a domain": patch(
        "replicas_from_ranking", replicas_with(lambda d, i: b"<none>" if d is None else d)),
    # SPEC.md 6: the empty domain treated as no domain.
    "empty domain is no domain": patch(
        "replicas_from_ranking", replicas_with(lambda d, i: d or None)),
}

# The mistakes that every case of vectors.json lets through: its random memberships never put
# two nodes at equal or nearly equal cross products, it has one node without a domain per
# membership and no empty domain. (Rounding half up is caught there by two weight cases only:
# 2.5 fixed-point units, and 2^-33, which it accepts.)
PASS_VECTORS_JSON = {
    "tie rule 2 reversed",
    "tie rule 2 skipped",
    "D/W in binary64",
    "D/W of binary64 factors",
    "D*W in binary64",
    "domainless nodes share a domain",
    "empty domain is no domain",
}


def first_failure(vectors: dict) -> Optional[str]:
    """The name of the first check the (possibly mutated) reference fails, or None."""
    default_seed = bytes.fromhex(vectors["default_seed"])
    for section, check in (("cases", lambda c: ref.check_case(c, default_seed)),
                           ("draw_cases", ref.check_draw_case),
                           ("weight_cases", ref.check_weight_case),
                           ("error_cases", lambda c: ref.check_error_case(c, default_seed))):
        for i, case in enumerate(vectors[section]):
            try:
                problems = check(case)
            except Exception as err:     # a mutation may make a valid membership fail to build
                problems = [f"raised {type(err).__name__}: {err}"]
            if problems:
                return f"{case.get('name', f'{section}[{i}]')}: {problems[0]}"
    return None


class EdgeVectorsCatchMutations(unittest.TestCase):
    def test_unmutated_reference_passes_both_files(self):
        self.assertIsNone(first_failure(EDGE))
        self.assertIsNone(first_failure(VECTORS))

    def test_every_mutation_fails_the_edge_vectors(self):
        for name, mutation in MUTATIONS.items():
            with self.subTest(mutation=name), mutation():
                self.assertIsNotNone(first_failure(EDGE), f"{name} passes vectors-edge.json")

    def test_which_mutations_vectors_json_lets_through(self):
        passing = set()
        for name, mutation in MUTATIONS.items():
            with mutation():
                if first_failure(VECTORS) is None:
                    passing.add(name)
        self.assertEqual(passing, PASS_VECTORS_JSON)

    def test_mutations_change_what_they_claim(self):
        # Each planted mistake really differs from the reference somewhere, so a mutation that
        # passes vectors.json is a gap of that file and not a no-op.
        s = 2**63 + 2**23                               # d = 1: its lowest bit matters
        with MUTATIONS["draw from 40 bits"]():
            mutated = ref.draw(s)
        self.assertNotEqual(mutated, ref.draw(s))
        half = 2.5 * 2**-32                               # 2.5 fixed-point units: even is 2
        for name, want in (("weights rounded half up", 3), ("weights truncated", 2),
                           ("weights rounded half down", 2)):
            with MUTATIONS[name]():
                self.assertEqual(ref.fixed_weight(half), want, name)
        self.assertEqual(ref.fixed_weight(half), 2)
        with MUTATIONS["weights rounded half down"]():
            self.assertEqual(ref.fixed_weight(3.5 * 2**-32), 3)
        self.assertEqual(ref.fixed_weight(3.5 * 2**-32), 4)


if __name__ == "__main__":
    unittest.main()
