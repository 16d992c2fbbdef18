"""Self-checks of the live view reference: it fails the cases when they are wrong.

    python3 -m unittest discover -s conformance/reference
"""

import copy
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import live_view_reference as ref  # noqa: E402
from vectors_file import load  # noqa: E402



class MutationTest(unittest.TestCase):
    def assert_caught(self, doc: dict) -> None:
        passed, failed = ref.run(doc)
        self.assertTrue(failed, "a wrong case passed")

    def test_the_files_pass(self):
        for name in ("live-view.json", "endpointslices.json"):
            passed, failed = ref.run(load(name))
            self.assertEqual(failed, [], name)
            self.assertGreater(passed, 0)

    def test_a_wrong_route_outcome_or_state_fails(self):
        doc = load("live-view.json")
        for mutate in (
            lambda s: s["state"]["routes"][0].__setitem__(2, not s["state"]["routes"][0][2]),
            lambda s: s["state"].__setitem__("moving", not s["state"]["moving"]),
            lambda s: s["state"].__setitem__("last_error", "Io"),
            lambda s: s["state"].__setitem__("epoch", "99"),
        ):
            wrong = copy.deepcopy(doc)
            mutate(wrong["cases"][0]["steps"][0])
            self.assert_caught(wrong)
        for case, step, expect in (("stale", 0, {"error": "StaleView", "epoch": "4", "current": "4"}),
                                   ("conflict", 0, "unchanged"),
                                   ("higher-epoch-same-fingerprint", 0, "unchanged")):
            wrong = copy.deepcopy(doc)
            c = next(c for c in wrong["cases"] if c["name"] == case)
            c["steps"][step]["expect"] = expect
            self.assert_caught(wrong)

    def test_a_wrong_endpoint_slice_view_fails(self):
        doc = load("endpointslices.json")
        wrong = copy.deepcopy(doc)
        case = next(c for c in wrong["cases"] if c["name"] == "draining-stays-known")
        case["expected"] = case["expected"].replace('"weight": 0, "domain": "z1"', '"domain": "z1"')
        self.assert_caught(wrong)
        wrong = copy.deepcopy(doc)
        case = next(c for c in wrong["cases"] if c["name"] == "only-draining")
        case["error"] = "EmptyMembership"
        self.assert_caught(wrong)


if __name__ == "__main__":
    unittest.main()
