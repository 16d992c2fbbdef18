"""The slot-history-v1 vectors catch the mistakes an implementation of SLOT-HISTORY.md is likely
to make: each test plants one in the reference and checks that some case then fails."""

import json
import os
import struct
import sys
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import slot_history_reference as sh  # noqa: E402

with open(os.path.join(HERE, "..", "policies", "slot-history-v1.json"), "rb") as f:
    VECTORS = json.load(f)


def failures() -> int:
    return len(sh.run(VECTORS)[1])


class PlantedMistakes(unittest.TestCase):
    def test_reference_passes(self):
        self.assertEqual(failures(), 0)

    def test_changes_applied_in_reverse_order(self):
        real = sh.replay

        def reversed_replay(h):
            return real(h._replace(changes=list(reversed(h.changes))))

        with mock.patch.object(sh, "replay", reversed_replay):
            self.assertGreater(failures(), 0)

    def test_table_rebuilt_from_the_final_membership(self):
        real = sh.replay

        def rebuild(h):
            t = real(h)
            fresh = sh.st.first_table(sh.membership(h.seed, t.nodes), h.slots)
            return sh.Table(t.nodes, fresh)

        with mock.patch.object(sh, "replay", rebuild):
            self.assertGreater(failures(), 0)

    def test_fingerprint_over_build_order(self):
        with mock.patch.object(sh, "ranks", lambda t: list(range(len(t.nodes)))):
            self.assertGreater(failures(), 0)

    def test_fingerprint_without_the_view(self):
        def no_view(h, t):
            rank = sh.ranks(t)
            m = sh.hrw.u64le(len(sh.POLICY)) + sh.POLICY.encode() + sh.hrw.u64le(h.slots)
            m += b"".join(struct.pack("<I", rank[o]) for o in t.owners)
            return sh.hashlib.sha256(m).digest()[:16]

        with mock.patch.object(sh, "table_fingerprint", no_view):
            self.assertGreater(failures(), 0)

    def test_weight_change_as_remove_and_add(self):
        real = sh.apply

        def remove_add(seed, nodes, table, sds, c, position):
            if c.op != "weight":
                return real(seed, nodes, table, sds, c, position)
            old = next(n for n in nodes if n.id == c.id)
            nodes = real(seed, nodes, table, sds, sh.Change("remove", c.id, None, None), position)
            add = sh.Change("add", c.id, c.weight, old.domain)
            return real(seed, nodes, table, sds, add, position)

        with mock.patch.object(sh, "apply", remove_add):
            self.assertGreater(failures(), 0)

    def test_initial_written_in_build_order(self):
        with mock.patch.object(sh, "initial_order", lambda h: list(h.initial)):
            self.assertGreater(failures(), 0)

    def test_weight_one_left_out_of_a_weight_change(self):
        def parts(c):
            out = ['"op": "%s"' % c.op]
            if c.op == "add":
                return out + sh.node_parts(sh.NodeSpec(c.id, c.weight, c.domain))
            out.append(sh.vr.text_member("id", c.id))
            if c.op == "weight" and c.weight != sh.ONE:
                out.append('"weight": ' + sh.vr.weight_text(c.weight))
            return out

        with mock.patch.object(sh, "change_parts", parts):
            self.assertGreater(failures(), 0)

    def test_duplicate_add_positioned_in_the_membership(self):
        real = sh.apply

        def membership_position(seed, nodes, table, sds, c, position):
            return real(seed, nodes, table, sds, c, len(nodes))

        with mock.patch.object(sh, "apply", membership_position):
            self.assertGreater(failures(), 0)

    def test_seed_checked_after_the_replay(self):
        def late_seed(data, seed=sh.hrw.DEFAULT_SEED):
            epoch, fp, slots, initial, changes, mode = sh.load_document(data)
            sh.check_membership(initial)
            h = sh.History(epoch, seed, slots, initial, changes, mode)
            t = sh.replay(h)
            ok = seed == sh.hrw.DEFAULT_SEED if fp is None else sh.vr.seed_fingerprint(seed) == fp
            if not ok:
                raise sh.Error("SeedMismatch")
            return h, t

        with mock.patch.object(sh, "load", late_seed):
            self.assertGreater(failures(), 0)

    def test_fractional_slots_truncated(self):
        real = sh.slot_count
        with mock.patch.object(sh, "slot_count", lambda s: real(float(int(s)) if s >= 0 else s)):
            self.assertGreater(failures(), 0)

    def test_each_change_replayed_as_soon_as_it_is_read(self):
        # Checking change structure and replaying in one pass reports replay errors too early.
        real = sh.parse_change

        def early(element, i):
            c = real(element, i)
            if c.op == "remove" and c.id == b"zz":
                raise sh.Error("UnknownNode")
            return c

        with mock.patch.object(sh, "parse_change", early):
            self.assertGreater(failures(), 0)

    def test_op_members_checked_after_the_id(self):
        real = sh.node_members

        def id_first(m, prefix, index):
            if prefix == "changes." and "id" not in m and "id_hex" not in m:
                raise sh.invalid("changes.id", index, "missing")
            return real(m, prefix, index)

        with mock.patch.object(sh, "node_members", id_first):
            with mock.patch.object(sh, "OPTIONAL", []):
                self.assertGreater(failures(), 0)

    def test_ranked_table_replayed_as_levelled(self):
        with mock.patch.object(sh, "RANKED_POLICY", "no such policy"):
            self.assertGreater(failures(), 0)

    def test_ranked_fingerprint_without_the_bound(self):
        real = sh.table_fingerprint

        def no_bound(h, t):
            return real(h._replace(mode=h.mode._replace(overload=None)), t)

        with mock.patch.object(sh, "table_fingerprint", no_bound):
            self.assertGreater(failures(), 0)

    def test_ranked_fingerprint_as_levelled(self):
        real = sh.table_fingerprint

        def as_levelled(h, t):
            return real(h._replace(mode=sh.LEVELLED), t)

        with mock.patch.object(sh, "table_fingerprint", as_levelled):
            self.assertGreater(failures(), 0)

    def test_overload_ppm_allowed_with_levelled(self):
        real = sh.overload_of

        def lax(m, policy):
            return real(m, sh.RANKED_POLICY)

        with mock.patch.object(sh, "overload_of", lax):
            self.assertGreater(failures(), 0)

    def test_overload_ppm_above_range_called_invalid(self):
        with mock.patch.object(sh, "MAX_OVERLOAD", 2**64):
            self.assertGreater(failures(), 0)


if __name__ == "__main__":
    unittest.main()
