"""The slot-table-v2 vectors catch the mistakes an implementation of POLICIES.md is likely to
make: each test plants one in the reference and checks that some case then fails."""

import unittest
from fractions import Fraction
from unittest import mock

import policy_slot_table_v2 as st
from vectors_file import load

VECTORS = load("policies/slot-table-v2.json")


def failures() -> int:
    return len(st.run(VECTORS)[1])


class PlantedMistakes(unittest.TestCase):
    def test_reference_passes(self):
        self.assertEqual(failures(), 0)

    def test_slot_digest_with_the_v1_prefix(self):
        with mock.patch.object(st, "SLOT_KEY_PREFIX", b"slot-table-v1:"):
            with mock.patch.dict(VECTORS, {"slot_key_prefix": "slot-table-v1:"}):
                self.assertGreater(failures(), 0)

    def test_load_by_count_without_weight(self):
        with mock.patch.object(st, "load_key",
                               lambda ms, t, i: (t.count(i), ms.digests[i], ms.ids[i])):
            self.assertGreater(failures(), 0)

    def test_load_ties_by_id_before_digest(self):
        with mock.patch.object(st, "load_key", lambda ms, t, i: (
                Fraction(t.count(i), ms.weights[i]), ms.ids[i], ms.digests[i])):
            self.assertGreater(failures(), 0)

    def test_preferred_slot_by_lowest_score(self):
        def lowest_score(ms, sds, table, chooser, holder):
            held = [s for s in range(len(table)) if table[s] == holder]
            return min(held, key=lambda s: (st.hrw.score(sds[s], ms.digests[chooser]), -s))

        with mock.patch.object(st, "preferred", lowest_score):
            self.assertGreater(failures(), 0)

    def test_target_rounded_down(self):
        def floor_target(ms, sds, table, j):
            total = sum(ms.weights)
            target = len(table) * ms.weights[j] // total
            others = [i for i in range(len(ms.ids)) if i != j and ms.weights[i] > 0]
            while table.count(j) < target:
                donor = max(others, key=lambda i: st.load_key(ms, table, i))
                table[st.preferred(ms, sds, table, j, donor)] = j
            while table.count(j) > target:
                taker = min(others, key=lambda i: st.load_key(ms, table, i))
                table[st.preferred(ms, sds, table, taker, j)] = taker

        with mock.patch.object(st, "level", floor_target):
            self.assertGreater(failures(), 0)

    def test_first_table_in_node_list_order(self):
        def list_order(ms, slots):
            if not 1 <= slots <= st.MAX_SLOTS:
                raise st.SlotError("InvalidSlotCount")
            total = sum(ms.weights)
            n = len(ms.ids)
            quota = [slots * w // total for w in ms.weights]
            order = sorted(range(n), key=lambda i: (-(slots * ms.weights[i] % total),
                                                    ms.digests[i], ms.ids[i]))
            for i in order[:slots - sum(quota)]:
                quota[i] += 1
            return [i for i in range(n) for _ in range(quota[i])]

        with mock.patch.object(st, "first_table", list_order):
            self.assertGreater(failures(), 0)

    def test_order_independent_rebuild(self):
        # Rebuilding the first table of each new membership instead of levelling.
        real_apply = st.apply

        def rebuild(seed, nodes, table, change):
            nodes, _ = real_apply(seed, nodes, list(table), change)
            return nodes, st.first_table(st.hrw.build_membership(seed, nodes), len(table))

        with mock.patch.object(st, "apply", rebuild):
            self.assertGreater(failures(), 0)


if __name__ == "__main__":
    unittest.main()
