"""The transition reference against transitions.json, and the mistakes the file must catch: each
planted mistake below, a plausible misreading of VIEW.md 6, fails at least one case.

    python3 -m unittest discover -s conformance/reference
"""

import os
import sys
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import transition_reference as ref  # noqa: E402
import vectors_file  # noqa: E402

DATA = vectors_file.load("transitions.json")


def only(section):
    """The file with the cases of one section, for a mistake that shows only there."""
    return dict(DATA, **{s: DATA[s] if s == section else [] for s in ("movement", "routes", "diffs")})


def summed(p, order, term):
    sw, sv = float(sum(x[1] for x in p)), float(sum(x[2] for x in p))
    stay = 0.0
    for _, w, v in order(p):
        stay += term(float(w), float(v), sw, sv)
    return max(0.0, 1.0 - stay)


def quotients(w, v, sw, sv):
    return (w / sw) * (v / sv)


MOVEMENT_MISTAKES = {
    "ids in descending order": lambda p: summed(p, lambda p: sorted(p, reverse=True), quotients),
    "build order (old side, then new-only ids)": lambda p: summed(p, list, quotients),
    "the product before the division": lambda p: summed(p, sorted, lambda w, v, sw, sv: (w * v) / (sw * sv)),
    "left to right": lambda p: summed(p, sorted, lambda w, v, sw, sv: ((w / sw) * v) / sv),
}


def sorted_route(route_top):
    def planted(self, key, k):
        r = route_top(self, key, k)
        return dict(r, add=sorted(r["add"]), drop=sorted(r["drop"]))
    return planted


class TransitionReferenceTest(unittest.TestCase):
    def test_the_file_passes(self):
        passed, failed = ref.run(DATA)
        self.assertEqual(failed, [])
        self.assertGreater(passed, 30)

    def test_each_wrong_movement_evaluation_fails_a_case(self):
        for name, planted in MOVEMENT_MISTAKES.items():
            with self.subTest(name), mock.patch.object(ref, "expected_moved_two_seeds", planted):
                _, failed = ref.run(only("movement"))
                self.assertTrue(any(n.startswith("movement/") for n, _ in failed), name)

    def test_add_and_drop_in_index_order_fail_a_case(self):
        with mock.patch.object(ref.Transition, "route_top", sorted_route(ref.Transition.route_top)):
            _, failed = ref.run(only("routes"))
        self.assertTrue(any(n.startswith("routes/") for n, _ in failed))

    def test_rows_in_id_order_fail_a_case(self):
        diff = ref.Transition.diff

        def planted(self, keys, k):
            out = diff(self, keys, k)
            return dict(out, nodes=sorted(out["nodes"], key=lambda r: r["id"]))

        with mock.patch.object(ref.Transition, "diff", planted):
            _, failed = ref.run(only("diffs"))
        self.assertTrue(any(n.startswith("diffs/") for n, _ in failed))


if __name__ == "__main__":
    unittest.main()
