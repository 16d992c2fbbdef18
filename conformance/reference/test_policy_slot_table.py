"""The slot-table vectors catch the mistakes an implementation of POLICIES.md is likely to make:
each test plants one in the reference and checks that some case then fails."""

import unittest
from unittest import mock

import policy_slot_table as st
from vectors_file import load

VECTORS = load("policies/slot-table.json")


def failures() -> int:
    return len(st.run(VECTORS)[1])


class PlantedMistakes(unittest.TestCase):
    def test_reference_passes(self):
        self.assertEqual(failures(), 0)

    def test_slot_by_remainder(self):
        with mock.patch.object(st, "slot_of", lambda seed, key, n: st.hrw.key_digest(seed, key) % n):
            self.assertGreater(failures(), 0)

    def test_capacity_without_node_offset(self):
        real = st.capacities

        def rounded_up(ms, slots, overload):
            if overload is None:
                return real(ms, slots, overload)
            total = sum(ms.weights)
            return [0 if w == 0 else min(slots, -(-slots * w * (st.PPM + overload) // (st.PPM * total)))
                    for w in ms.weights]

        with mock.patch.object(st, "capacities", rounded_up):
            self.assertGreater(failures(), 0)

    def test_slot_key_without_prefix(self):
        with mock.patch.object(st, "slot_key", lambda s: s.to_bytes(4, "little")):
            self.assertGreater(failures(), 0)


if __name__ == "__main__":
    unittest.main()
