"""Self-checks of the view reference that do not depend on views.json.

    python3 -m unittest discover -s conformance/reference
"""

import hashlib
import json
import os
import random
import sys
import unittest
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import view_reference as ref  # noqa: E402


class WeightTextTest(unittest.TestCase):
    def test_exact_decimal_of_fixed_point(self):
        for w in [0, 1, 2**32, 3 * 2**31, 429496730, 2**64 - 2048, 12345678901]:
            text = ref.weight_text(w)
            self.assertEqual(Fraction(text), Fraction(w, 2**32), text)
            self.assertNotIn("e", text)
            self.assertFalse("." in text and text.endswith("0"), text)

    def test_reads_back_through_binary64(self):
        rng = random.Random(7)
        for _ in range(2000):
            w = ref.hrw.fixed_weight(rng.uniform(0, 2**32 - 1) * rng.choice([1, 1e-6, 1e-9]))
            self.assertEqual(ref.hrw.fixed_weight(float(ref.weight_text(w))), w)


class JsonStringTest(unittest.TestCase):
    def test_matches_the_escapes_of_view_md(self):
        text = "".join(chr(c) for c in range(0x80)) + "é\u2028😀"
        expected = json.dumps(text, ensure_ascii=False).replace("\\u007f", "\x7f")
        self.assertEqual(ref.json_string(text), expected)


class ExpectedMovementTest(unittest.TestCase):
    def quadratic(self, pairs):
        stay = Fraction(0)
        for _, wj, vj in pairs:
            if wj and vj:
                stay += 1 / sum(max(Fraction(w, wj), Fraction(v, vj)) for _, w, v in pairs)
        return float(1 - stay)

    def test_sorted_sums_equal_the_quadratic_formula(self):
        rng = random.Random(1)
        for _ in range(200):
            n = rng.randint(1, 12)
            pairs = [(b"n%d" % i, rng.choice([0, 1, 2, 3, 2**32, 7 * 2**30]),
                      rng.choice([0, 1, 2**32, 5 * 2**31])) for i in range(n)]
            if not any(p[1] for p in pairs) or not any(p[2] for p in pairs):
                continue
            self.assertAlmostEqual(ref.expected_moved(pairs), self.quadratic(pairs), places=12)

    def test_known_changes(self):
        one = 2**32
        add = [(b"%d" % i, one if i < 5 else 0, one) for i in range(6)]
        self.assertAlmostEqual(ref.expected_moved(add), 1 / 6, places=15)
        swap = [(b"a", one, one), (b"b", one, 0), (b"c", one, one), (b"d", 0, 2 * one)]
        self.assertAlmostEqual(ref.expected_moved(swap), 0.6, places=15)
        self.assertAlmostEqual(ref.optimum(swap), 0.5, places=15)


class FingerprintTest(unittest.TestCase):
    def test_seed_fingerprint_is_a_sha256_prefix(self):
        seed = bytes(range(16))
        self.assertEqual(ref.seed_fingerprint(seed),
                         hashlib.sha256(b"hrwhash-view-v1:seed" + seed).digest()[:8])

    def test_order_and_epoch_do_not_matter(self):
        a = ref.View(1, ref.hrw.DEFAULT_SEED, [b"a", b"b"], [2**32, 0], [None, b""])
        b = ref.View(9, ref.hrw.DEFAULT_SEED, [b"b", b"a"], [0, 2**32], [b"", None])
        self.assertEqual(ref.view_fingerprint(a), ref.view_fingerprint(b))
        c = a._replace(domains=[None, None])
        self.assertNotEqual(ref.view_fingerprint(a), ref.view_fingerprint(c))


if __name__ == "__main__":
    unittest.main()
