"""Self-checks of the reference implementation that do not depend on vectors.json.

    python3 -m unittest discover -s conformance/reference
"""

import decimal
import math
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hrw_reference as ref  # noqa: E402

PAPER_K0 = int.from_bytes(bytes(range(0, 8)), "little")
PAPER_K1 = int.from_bytes(bytes(range(8, 16)), "little")


class SipHashTest(unittest.TestCase):
    def test_paper_vector_2_4(self):
        # Appendix A of the SipHash paper: key 00..0f, message 00..0e.
        self.assertEqual(ref.siphash24(PAPER_K0, PAPER_K1, bytes(range(15))), 0xA129CA6149BE45E5)

    def test_reference_vectors_2_4(self):
        # The first entries of the 64 vectors shipped with the SipHash reference implementation:
        # key 00..0f, message 00..(i-1).
        expected = [0x726FDB47DD0E0E31, 0x74F839C593DC67FD, 0x0D6C8009D9A94F5A, 0x85676696D7FB7E2D]
        for i, want in enumerate(expected):
            self.assertEqual(ref.siphash24(PAPER_K0, PAPER_K1, bytes(range(i))), want, i)

    def test_reference_vectors_1_3(self):
        # SipHash-1-3 of the reference implementation with the all-zero key, message 00..(i-1).
        expected = [0xD1FBA762150C532C, 0x68A914128E01E473, 0x010BAC45C41E3669, 0x4D4C9A4A8EF6E0AD]
        for i, want in enumerate(expected):
            self.assertEqual(ref.siphash13(0, 0, bytes(range(i))), want, i)

    def test_block_boundaries_differ(self):
        # Lengths around the 8-byte word size must each give a distinct digest (the length byte
        # and the tail handling both matter).
        digests = {ref.siphash13(1, 2, bytes(n)) for n in range(0, 25)}
        self.assertEqual(len(digests), 25)


class DigestTest(unittest.TestCase):
    def test_key_and_node_domains_are_separate(self):
        self.assertNotEqual(ref.key_digest(ref.DEFAULT_SEED, b"a"), ref.node_digest(ref.DEFAULT_SEED, b"a"))

    def test_seed_halves_are_little_endian(self):
        seed = bytes(range(16))
        k0, k1 = ref.seed_keys(seed)
        self.assertEqual((k0, k1), (PAPER_K0, PAPER_K1))

    def test_score_is_xor_fold_times_multiplier(self):
        self.assertEqual(ref.score(0, 0), 0)
        self.assertEqual(ref.score(1, 0), 0xD6E8FEB86659FD93)
        self.assertEqual(ref.score(0, 1 << 32), (1 + (1 << 32)) * 0xD6E8FEB86659FD93 % 2**64)


class DrawTest(unittest.TestCase):
    def test_table_end_points(self):
        self.assertEqual(ref.T[0], 0)
        self.assertEqual(ref.T[256], 2**56)
        self.assertEqual((len(ref.T), len(ref.B)), (257, 256))

    def test_tables_match_float_logarithms(self):
        # The high-precision tables agree with binary64 log2 to its own accuracy.
        for i in range(257):
            self.assertLess(abs(ref.T[i] / 2**56 - math.log2(1 + i / 256)), 1e-15, i)
        for j in range(256):
            curvature = 4 * (math.log2(1 + (j + 0.5) / 256)
                             - (math.log2(1 + j / 256) + math.log2(1 + (j + 1) / 256)) / 2)
            self.assertLess(abs(ref.B[j] / 2**56 - curvature), 1e-12, j)

    def test_extremes(self):
        self.assertEqual(ref.draw(2**64 - 1), 0)
        self.assertEqual(ref.draw(0), 64 * 2**56)

    def test_powers_of_two_are_exact(self):
        # u = 2^-n gives -log2(u) = n exactly: v = 2^(64-n) lands on segment 0, d = 0.
        for n in range(1, 65):
            self.assertEqual(ref.draw(2**(64 - n) - 1), n * 2**56, n)

    def test_close_to_log2(self):
        rng = random.Random(1)
        for _ in range(2000):
            s = rng.getrandbits(64)
            exact = -math.log2((s + 1) / 2**64)
            self.assertLess(abs(ref.draw(s) / 2**56 - exact), 1e-6)

    def test_error_bound(self):
        # 5.2: f is log2(m / 2^63) with an absolute error below 2^-26.
        with decimal.localcontext() as ctx:
            ctx.prec = 40
            ln2 = decimal.Decimal(2).ln()
            rng = random.Random(4)
            for _ in range(3000):
                s = rng.getrandbits(64) | (1 << 63)
                exact = (decimal.Decimal(s + 1) / 2**63).ln() / ln2   # s >= 2^63, so e = 63
                f = 2**56 - ref.draw(s)
                self.assertLess(abs(decimal.Decimal(f) / 2**56 - exact), decimal.Decimal(2) ** -26)

    def test_range(self):
        rng = random.Random(2)
        for _ in range(2000):
            s = rng.getrandbits(rng.randint(1, 64)) % (2**64 - 1)
            self.assertTrue(0 < ref.draw(s) <= 64 * 2**56)

    def test_monotonic_over_sorted_samples(self):
        rng = random.Random(3)
        samples = sorted(rng.getrandbits(64) for _ in range(20000))
        # Segment and exponent boundaries are where a wrong table or shift would show.
        for e in range(64):
            for j in range(0, 256, 17):
                v = (2**63 + j * 2**55) >> (63 - e)
                samples += [v - 2, v - 1, v]
        samples = sorted(s for s in set(samples) if 0 <= s < 2**64)
        draws = [ref.draw(s) for s in samples]
        for a, b, sa, sb in zip(draws, draws[1:], samples, samples[1:]):
            self.assertGreaterEqual(a, b, (sa, sb))

    def test_segments_join(self):
        # The end of segment j (d -> 2^32) meets the start of segment j + 1.
        for j in range(256):
            d = 2**32
            p = ref.T[j] * 2**64 + (ref.T[j + 1] - ref.T[j]) * d * 2**32 + ref.B[j] * d * (2**32 - d)
            self.assertEqual(p >> 64, ref.T[j + 1])


class WeightTest(unittest.TestCase):
    def test_fixed_point(self):
        self.assertEqual(ref.fixed_weight(1.0), 2**32)
        self.assertEqual(ref.fixed_weight(0.5), 2**31)
        self.assertEqual(ref.fixed_weight(0.0), 0)
        self.assertEqual(ref.fixed_weight(-0.0), 0)
        self.assertEqual(ref.fixed_weight(2.0**32 - 2.0**-20), 2**64 - 2**12)

    def test_round_half_even(self):
        self.assertEqual(ref.fixed_weight(1.5 * 2**-32), 2)
        self.assertEqual(ref.fixed_weight(2.5 * 2**-32), 2)
        self.assertEqual(ref.fixed_weight(3.5 * 2**-32), 4)
        self.assertEqual(ref.fixed_weight(0.75 * 2**-32), 1)

    def test_rejections(self):
        smallest_subnormal = 5e-324
        for w in (math.nan, math.inf, -math.inf, -1.0, -2.0**-40, 2.0**32, 2.0**40,
                  2.0**-33, smallest_subnormal):
            with self.assertRaises(ref.HrwError) as caught:
                ref.fixed_weight(w)
            self.assertEqual(caught.exception.name, "InvalidWeight", w)

    def test_just_above_half_ulp_is_accepted(self):
        # 2^-33 rounds to 0 (tie to even); the next binary64 up rounds to 1.
        self.assertEqual(ref.fixed_weight(math.nextafter(2.0**-33, 1.0)), 1)


def nodes(count, weight=1.0):
    return [ref.Node(b"node-" + str(i).encode(), weight) for i in range(count)]


class RankingTest(unittest.TestCase):
    def test_equal_weights_give_unweighted_ranking(self):
        for weight in (1.0, 0.25, 3.0):
            ms = ref.build_membership(ref.DEFAULT_SEED, nodes(40, weight))
            candidates = list(range(40))
            for i in range(200):
                scores = ref.scores_for(ms, str(i).encode())
                self.assertEqual(ref.weighted_order(scores, ms.ids, ms.weights, candidates),
                                 ref.unweighted_order(scores, ms.ids, candidates))

    def test_equal_scores_break_by_id(self):
        ids = [b"ab", b"a", b"b", b"a\x00"]
        order = ref.unweighted_order([7, 7, 7, 7], ids, range(4))
        self.assertEqual([ids[i] for i in order], [b"a", b"a\x00", b"ab", b"b"])
        self.assertEqual(ref.weighted_order([7] * 4, ids, [1, 1, 1, 1], range(4)), order)

    def test_weighted_ties_break_by_score_then_id(self):
        # Same draw and weight: the higher score first; then the smaller id.
        s = 2**63
        self.assertEqual(ref.draw(s), ref.draw(s + 1))
        self.assertEqual(ref.weighted_order([s, s + 1], [b"a", b"b"], [2, 2], [0, 1]), [1, 0])
        self.assertEqual(ref.weighted_order([s, s], [b"b", b"a"], [2, 2], [0, 1]), [1, 0])

    def test_draining_nodes_are_left_out(self):
        ns = nodes(5)
        ns[2] = ns[2]._replace(weight=0.0)
        ms = ref.build_membership(ref.DEFAULT_SEED, ns)
        for i in range(50):
            order = ref.ranking(ms, str(i).encode())
            self.assertEqual(sorted(order), [0, 1, 3, 4])
            self.assertEqual(ref.rank(ms, str(i).encode(), 10), order)

    def test_heavier_node_wins_more_often(self):
        ns = nodes(2)
        ns[1] = ns[1]._replace(weight=3.0)
        ms = ref.build_membership(ref.DEFAULT_SEED, ns)
        wins = sum(ref.owner(ms, str(i).encode()) == 1 for i in range(4000))
        self.assertTrue(2800 < wins < 3200, wins)


class ReplicasTest(unittest.TestCase):
    def test_distinct_domains_first_then_the_rest(self):
        ns = [ref.Node(b"n%d" % i, 1.0, b"rack-a" if i < 3 else None if i == 3 else b"rack-b")
              for i in range(6)]
        ms = ref.build_membership(ref.DEFAULT_SEED, ns)
        for i in range(100):
            key = str(i).encode()
            order = ref.ranking(ms, key)
            got = ref.replicas(ms, key, 4)
            first_a = next(n for n in order if ns[n].domain == b"rack-a")
            first_b = next(n for n in order if ns[n].domain == b"rack-b")
            third = [n for n in order if n not in (first_a, first_b, 3)][0]
            self.assertEqual(got[:3], [n for n in order if n in (first_a, first_b, 3)])
            self.assertEqual(got[3], third)
            self.assertEqual(ref.replicas(ms, key, 99), got + [n for n in order if n not in got])

    def test_strict_refuses_fewer_domains_than_k(self):
        # rack-a, rack-b and the node without a domain: three domains; draining rack-b leaves two.
        ns = [ref.Node(b"n%d" % i, 1.0, b"rack-a" if i < 3 else None if i == 3 else b"rack-b")
              for i in range(6)]
        ms = ref.build_membership(ref.DEFAULT_SEED, ns)
        self.assertEqual(ref.replicas_strict(ms, b"k", 3), ref.replicas(ms, b"k", 3))
        drained = [n._replace(weight=0.0) if n.domain == b"rack-b" else n for n in ns]
        ms = ref.build_membership(ref.DEFAULT_SEED, drained)
        self.assertEqual(ref.replicas_strict(ms, b"k", 2), ref.replicas(ms, b"k", 2))
        with self.assertRaises(ref.HrwError) as caught:
            ref.replicas_strict(ms, b"k", 3)
        self.assertEqual(caught.exception.name, "InvalidReplicaCount")
        self.assertEqual(len(ref.replicas(ms, b"k", 3)), 3)


class ErrorOrderTest(unittest.TestCase):
    def error(self, seed, ns):
        with self.assertRaises(ref.HrwError) as caught:
            ref.build_membership(seed, ns)
        return caught.exception.name

    def test_each_error(self):
        seed = ref.DEFAULT_SEED
        self.assertEqual(self.error(b"short", nodes(2)), "InvalidSeedLength")
        self.assertEqual(self.error(seed, [ref.Node(b"a", math.nan)]), "InvalidWeight")
        self.assertEqual(self.error(seed, []), "EmptyMembership")
        self.assertEqual(self.error(seed, [ref.Node(b"a"), ref.Node(b"")]), "EmptyNodeId")
        self.assertEqual(self.error(seed, [ref.Node(b"a"), ref.Node(b"a")]), "DuplicateNodeId")
        self.assertEqual(self.error(seed, [ref.Node(b"a", 0.0)]), "AllWeightsZero")

    def test_order(self):
        bad_seed = bytes(17)
        self.assertEqual(self.error(bad_seed, [ref.Node(b"", math.inf)]), "InvalidSeedLength")
        self.assertEqual(self.error(ref.DEFAULT_SEED, [ref.Node(b""), ref.Node(b"", -1.0)]),
                         "InvalidWeight")
        self.assertEqual(self.error(ref.DEFAULT_SEED, [ref.Node(b"a"), ref.Node(b"a"), ref.Node(b"")]),
                         "EmptyNodeId")
        self.assertEqual(self.error(ref.DEFAULT_SEED, [ref.Node(b"a", 0.0), ref.Node(b"a", 0.0)]),
                         "DuplicateNodeId")


if __name__ == "__main__":
    unittest.main()
