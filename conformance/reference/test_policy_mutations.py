"""The policy vectors catch the mistakes an implementation is likely to make: each planted
mistake below must make at least one case fail.

    python3 -m unittest discover -s conformance/reference -p "test_*.py"
"""

import json
import os
import sys
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import policy_bounded_load as bl  # noqa: E402
import policy_replica_balance as rb  # noqa: E402


def load(name):
    with open(os.path.join(HERE, "..", "policies", name), encoding="utf-8") as f:
        return json.load(f)


class BoundedLoadMutations(unittest.TestCase):
    vectors = load("bounded-load.json")

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


class ReplicaBalanceMutations(unittest.TestCase):
    vectors = load("replica-balance.json")

    def failures(self):
        return len(rb.run(self.vectors)[1])

    def test_counting_the_primary_in_the_solve_is_caught(self):
        original = rb.solve

        def solve(ms, k, m):
            # Targets and counts over all k positions instead of positions 2..k.
            with mock.patch.object(rb, "replica_set",
                                   lambda p, o, k: [None] + [p] + [i for i in o if i != p][:k - 1]):
                return original(ms, k, m)
        with mock.patch.object(rb, "solve", solve):
            self.assertGreater(self.failures(), 0)

    def test_rounding_half_up_or_truncating_is_caught(self):
        with mock.patch.object(rb, "round_half_even", int):
            self.assertGreater(self.failures(), 0)

    def test_a_different_tolerance_is_caught(self):
        with mock.patch.object(rb, "TOLERANCE", 0.01):
            self.assertGreater(self.failures(), 0)


if __name__ == "__main__":
    unittest.main()
