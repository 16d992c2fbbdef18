"""The replica-balance vectors catch the mistakes an implementation is likely to make: each
planted mistake below must make at least one case fail.

    python3 -m unittest discover -s conformance/reference -p "test_*.py"
"""

import math
import os
import sys
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import policy_replica_balance as rb  # noqa: E402
from vectors_file import load  # noqa: E402


class ReplicaBalanceMutations(unittest.TestCase):
    vectors = load("policies/replica-balance-v2.json")

    def failures(self):
        return len(rb.run(self.vectors)[1])

    def test_the_file_passes(self):
        self.assertEqual(self.failures(), 0)

    def test_the_library_exp_is_caught(self):
        # math.exp is within an ulp or two of exp_neg, and that is enough to change bits.
        with mock.patch.object(rb, "exp_neg", lambda x: math.exp(-x) if x <= 700.0 else 0.0):
            self.assertGreater(self.failures(), 0)

    def test_one_ranking_for_both_positions_is_caught(self):
        # The second ranking from the key's own digest, as the retired sampled-weights draft did.
        with mock.patch.object(rb, "second_digest", lambda kd: kd):
            self.assertGreater(self.failures(), 0)

    def test_counting_the_primary_in_the_targets_is_caught(self):
        original = rb.inclusion

        def all_positions(v, omega, k):
            # Positions 1..k measured against (k - 1) W / S: the primary counted twice.
            return [p + o for p, o in zip(original(v, omega, k), omega)]
        with mock.patch.object(rb, "inclusion", all_positions):
            self.assertGreater(self.failures(), 0)

    def test_a_different_tolerance_is_caught(self):
        with mock.patch.object(rb, "TOLERANCE", 2.0**-14):
            self.assertGreater(self.failures(), 0)

    def test_a_grid_without_its_half_octave_points_is_caught(self):
        # The odd points taken at 2^e instead of 2^e * sqrt(2): every octave's start counted twice.
        original_ldexp = math.ldexp

        class Coarse:
            def __getattr__(self, name):
                return getattr(math, name)

            @staticmethod
            def ldexp(x, e):
                return original_ldexp(1.0 if x == rb.SQRT2 else x, e)
        with mock.patch.object(rb, "math", Coarse()):
            self.assertGreater(self.failures(), 0)

    def test_truncating_the_weights_is_caught(self):
        with mock.patch.object(rb, "round", int, create=True):
            self.assertGreater(self.failures(), 0)


if __name__ == "__main__":
    unittest.main()
