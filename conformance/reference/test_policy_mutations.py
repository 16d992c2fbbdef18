"""The policy vectors catch the mistakes an implementation is likely to make: each planted
mistake below must make at least one case fail.

    python3 -m unittest discover -s conformance/reference -p "test_*.py"
"""

import math
import os
import sys
import unittest
from fractions import Fraction
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import policy_bounded_load as bl  # noqa: E402
from vectors_file import load  # noqa: E402


class BoundedLoadMutations(unittest.TestCase):
    vectors = load("policies/bounded-load.json")

    def failures(self):
        return len(bl.run(self.vectors)[1])

    def test_the_file_passes(self):
        self.assertEqual(self.failures(), 0)

    def test_envoy_style_at_most_cap_is_caught(self):
        original = bl.ceil_div
        # Accepting loads equal to the cap is the same as a cap one larger.
        with mock.patch.object(bl, "ceil_div", lambda a, b: original(a, b) + 1):
            self.assertGreater(self.failures(), 0)

    def test_a_binary64_share_is_caught(self):
        def online(ms, num, den, key, loads):
            bl.check_factor(num, den)
            if len(loads) != len(ms.ids):
                raise bl.PolicyError("LengthMismatch")
            total = sum(loads)
            if total > bl.U64_MAX:
                raise bl.PolicyError("LoadOverflow")
            slots = float(bl.ceil_div((total + 1) * num, den))
            s = float(sum(ms.weights))
            import math
            for position, i in enumerate(bl.hrw.ranking(ms, key)):
                if loads[i] < math.ceil(slots * (ms.weights[i] / s)):
                    return i, position
            raise AssertionError
        with mock.patch.object(bl, "online_owner", online):
            self.assertGreater(self.failures(), 0)

    def test_truncating_the_float_factor_is_caught(self):
        from fractions import Fraction
        def truncated(c):
            if c != c or c in (float("inf"), float("-inf")) or c < 1:
                raise bl.PolicyError("InvalidBalanceFactor")
            num = int(Fraction(c) * 10**6)
            if num >= 2**32:
                raise bl.PolicyError("InvalidBalanceFactor")
            return num, 10**6
        with mock.patch.object(bl, "factor_from_float", truncated):
            self.assertGreater(self.failures(), 0)


class BoundedLoadBoundaryMutations(unittest.TestCase):
    """Each slip one step off a cap of bounded-load-v1 fails bounded-load-boundaries.json."""

    vectors = load("policies/bounded-load-boundaries.json")

    def failures(self):
        return len(bl.run(self.vectors)[1])

    def assertCaught(self, **patches):
        with mock.patch.multiple(bl, **patches):
            self.assertGreater(self.failures(), 0, f"{sorted(patches)} not caught")

    def test_the_file_passes(self):
        self.assertEqual(self.failures(), 0)

    def test_accepting_a_load_equal_to_the_cap_is_caught(self):
        self.assertCaught(accepts=lambda load, cap: load <= cap)

    def test_a_floor_for_the_online_cap_is_caught(self):
        self.assertCaught(online_cap=lambda slots, w, s: slots * w // s)

    def test_a_floor_with_a_minimum_of_one_for_the_online_cap_is_caught(self):
        self.assertCaught(online_cap=lambda slots, w, s: max(slots * w // s, 1 if w else 0))

    def test_floor_plus_one_for_the_online_cap_is_caught(self):
        self.assertCaught(online_cap=lambda slots, w, s: slots * w // s + 1 if w else 0)

    def test_slots_from_the_total_without_the_new_request_is_caught(self):
        self.assertCaught(online_slots=lambda total, num, den: bl.ceil_div(total * num, den))

    def test_slots_from_the_total_plus_two_is_caught(self):
        self.assertCaught(online_slots=lambda total, num, den: bl.ceil_div((total + 2) * num, den))

    def test_a_floor_for_the_slots_is_caught(self):
        self.assertCaught(online_slots=lambda total, num, den: (total + 1) * num // den)

    def test_rounding_the_slots_half_even_is_caught(self):
        self.assertCaught(online_slots=lambda total, num, den: round(Fraction((total + 1) * num, den)))

    def test_one_ceiling_of_the_whole_product_is_caught(self):
        # The cap as ceil((L + 1) * c * share): the slots stay an exact fraction.
        self.assertCaught(online_slots=lambda total, num, den: Fraction((total + 1) * num, den))

    def test_equal_shares_are_caught(self):
        self.assertCaught(share_weights=lambda ms: [1 if w else 0 for w in ms.weights])

    def test_binary64_shares_are_caught(self):
        self.assertCaught(
            online_cap=lambda slots, w, s: math.ceil(float(slots) * (w / s)),
            batch_cap=lambda num, den, k, w, s: math.ceil(num * k / den * (w / s)))

    def test_leaving_the_draining_nodes_out_of_the_total_is_caught(self):
        self.assertCaught(load_total=lambda ms, loads: sum(
            load for load, w in zip(loads, ms.weights) if w))

    def test_a_floor_for_the_batch_capacity_is_caught(self):
        self.assertCaught(batch_cap=lambda num, den, k, w, s: num * k * w // (den * s))

    def test_a_floor_with_a_minimum_of_one_for_the_batch_capacity_is_caught(self):
        self.assertCaught(batch_cap=lambda num, den, k, w, s:
                          max(num * k * w // (den * s), 1 if w else 0))

    def test_the_batch_capacity_one_larger_is_caught(self):
        original = bl.batch_cap
        self.assertCaught(batch_cap=lambda num, den, k, w, s: original(num, den, k, w, s) + 1)

    def test_the_batch_capacity_of_one_more_key_is_caught(self):
        original = bl.batch_cap
        self.assertCaught(batch_cap=lambda num, den, k, w, s: original(num, den, k + 1, w, s))

    def test_the_online_formula_in_batches_is_caught(self):
        # ceil(ceil(c * K) * share): two ceilings where POLICIES.md takes one.
        self.assertCaught(batch_cap=lambda num, den, k, w, s:
                          bl.ceil_div(bl.ceil_div(num * k, den) * w, s))

    def test_equal_shares_in_batches_alone_are_caught(self):
        self.assertCaught(batch_cap=lambda num, den, k, w, s: bl.ceil_div(num * k, den * 2))

    def test_refusing_a_total_of_exactly_2_64_minus_1_is_caught(self):
        self.assertCaught(U64_MAX=bl.U64_MAX - 1)

    def test_accepting_a_total_of_2_64_is_caught(self):
        self.assertCaught(U64_MAX=bl.U64_MAX + 1)

    def test_refusing_a_factor_of_exactly_1_is_caught(self):
        def check(num, den):
            if not (1 <= den < num < 2**32):
                raise bl.PolicyError("InvalidBalanceFactor")
        self.assertCaught(check_factor=check)

    def test_accepting_a_factor_one_step_below_1_is_caught(self):
        def check(num, den):
            if not (1 <= den <= num + 1 and num < 2**32):
                raise bl.PolicyError("InvalidBalanceFactor")
        self.assertCaught(check_factor=check)

    def test_truncating_the_float_factor_is_caught(self):
        def truncated(c):
            if c != c or c in (float("inf"), float("-inf")) or c < 1:
                raise bl.PolicyError("InvalidBalanceFactor")
            num = int(Fraction(c) * 10**6)
            if num >= 2**32:
                raise bl.PolicyError("InvalidBalanceFactor")
            return num, 10**6
        self.assertCaught(factor_from_float=truncated)

    def test_rounding_the_float_factor_through_binary64_is_caught(self):
        def via_float(c):
            if c != c or c in (float("inf"), float("-inf")) or c < 1:
                raise bl.PolicyError("InvalidBalanceFactor")
            num = round(c * 10**6)
            if num >= 2**32:
                raise bl.PolicyError("InvalidBalanceFactor")
            return num, 10**6
        self.assertCaught(factor_from_float=via_float)


if __name__ == "__main__":
    unittest.main()
