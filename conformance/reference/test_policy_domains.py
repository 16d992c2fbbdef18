"""What policies/domains.json is worth: plausible mistakes in a domains-v1 implementation, each
planted in the reference, must fail the file.

    python3 -m unittest discover -s conformance/reference -p "test_policy_domains.py"
"""

import json
import os
import sys
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import hrw_reference as hrw  # noqa: E402
import policy_domains as ref  # noqa: E402

with open(os.path.join(HERE, "..", "policies", "domains.json"), "rb") as f:
    VECTORS = json.load(f)


def fails(**patches) -> bool:
    """Whether some case fails with the patches in place (stopping at the first that does)."""
    seed = bytes.fromhex(VECTORS["default_seed"])
    checks = [(ref.check_error_case, c) for c in VECTORS["error_cases"]]
    checks += [(ref.check_case, c) for c in VECTORS["cases"]]
    with mock.patch.multiple(ref, **patches):
        for check, case in checks:
            try:
                if check(case, seed):
                    return True
            except Exception:
                return True
    return False


original_domain_digest = ref.domain_digest
original_sibling_order = ref.sibling_order
original_build = ref.build


class PlantedMistakes(unittest.TestCase):
    def test_the_unmutated_reference_passes(self):
        passed, failures = ref.run(VECTORS)
        self.assertEqual(failures, [])
        self.assertEqual(passed, len(VECTORS["cases"]) + len(VECTORS["error_cases"]))

    def test_domain_scored_as_a_node_id(self):
        self.assertTrue(fails(domain_digest=lambda seed, p: hrw.node_digest(seed, p)))

    def test_domain_digest_of_the_last_level_only(self):
        self.assertTrue(fails(domain_digest=lambda seed, p: original_domain_digest(
            seed, p.split(b"/")[-1])))

    def test_domains_weighted_by_node_count(self):
        def by_count(policy, key, domains):
            ones = policy._replace(ms=policy.ms._replace(
                weights=[1 if w else 0 for w in policy.ms.weights]))
            return original_sibling_order(ones, key, domains)
        self.assertTrue(fails(sibling_order=by_count))

    def test_fallback_walks_the_first_domain_dry(self):
        self.assertTrue(fails(interleave=lambda lists: [i for x in lists for i in x]))

    def test_plain_hrw_v1_ranking_with_section_6_spreading(self):
        def plain(policy, key):
            ms = policy.ms._replace(domains=[ref.prefix(policy, i, policy.level)
                                             for i in range(len(policy.ms.ids))])
            return hrw.replicas(ms, key, len(hrw.ranking(ms, key)))
        self.assertTrue(fails(order=plain))

    def test_checks_in_another_order(self):
        def depth_first(seed, nodes, level):
            depths = {len(n.domain.split(b"/")) for n in nodes if n.domain is not None}
            if len(depths) > 1:
                raise ref.PolicyError("InvalidDomains", index=0, reason="depth_mismatch")
            return original_build(seed, nodes, level)
        self.assertTrue(fails(build=depth_first))


if __name__ == "__main__":
    unittest.main()
