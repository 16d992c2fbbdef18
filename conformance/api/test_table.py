"""The API table check catches each kind of drift it promises to catch."""

import contextlib
import io
import unittest

import surfaces
import table


class DeriveTest(unittest.TestCase):
    def test_each_language_spells_an_operation_by_its_convention(self):
        want = {"rust": "Placement.owner_index", "python": "Placement.owner_index",
                "node": "Placement.ownerIndex", "c": "hrw_placement_owner_index",
                "cpp": "Placement.owner_index", "go": "Placement.OwnerIndex"}
        for lang, name in want.items():
            self.assertEqual(table.derive(lang, "Placement", "owner_index"), name)

    def test_constructors_and_initialisms(self):
        self.assertEqual(table.derive("go", "SlotTable", "new"), "NewSlotTable")
        self.assertEqual(table.derive("python", "SlotTable", "new"), "SlotTable.__init__")
        self.assertEqual(table.derive("c", "ReplicaBalance", "new"),
                         "hrw_replica_balance_new")
        self.assertEqual(table.derive("go", "View", "from_json"), "View.FromJSON")
        self.assertEqual(table.derive("go", "Placement", "node_id"), "Placement.NodeID")
        self.assertEqual(table.derive("c", "RampPlan", "len", "hrw_ramp"), "hrw_ramp_len")

    def test_a_count_takes_each_languages_word(self):
        want = {"rust": "Placement.len", "python": "Placement.__len__", "node": "Placement.length",
                "c": "hrw_placement_len", "cpp": "Placement.size", "go": "Placement.Len"}
        for lang, name in want.items():
            self.assertEqual(table.derive(lang, "Placement", "len"), name)
        self.assertEqual(table.derive("node", "Placement", "selectable_len"),
                         "Placement.selectableLength")
        self.assertEqual(table.derive("cpp", "Placement", "selectable_len"),
                         "Placement.selectable_size")
        self.assertEqual(table.derive("python", "Placement", "selectable_len"),
                         "Placement.selectable_len")

    def test_constants_of_the_crate_root(self):
        want = {"rust": "RAMP_GRID", "python": "RAMP_GRID", "node": "RAMP_GRID",
                "c": "HRW_RAMP_GRID", "cpp": "ramp_grid", "go": "RampGrid"}
        for lang, name in want.items():
            self.assertEqual(table.derive(lang, None, "RAMP_GRID"), name)


class CheckTest(unittest.TestCase):
    """`check` against surfaces made from the table itself, then changed by one name."""

    def run_check(self, edit):
        concepts = table.load()
        saved = dict(surfaces.READERS)
        try:
            for lang in table.LANGUAGES:
                names = set(table.expected(concepts, lang)) | table.error_names(lang)
                surfaces.READERS[lang] = (lambda n: lambda: sorted(n))(edit(lang, names))
            with contextlib.redirect_stdout(io.StringIO()) as out:
                status = table.check(list(table.LANGUAGES))
        finally:
            surfaces.READERS.clear()
            surfaces.READERS.update(saved)
        return status, out.getvalue()

    def test_the_table_agrees_with_itself(self):
        status, _ = self.run_check(lambda lang, names: names)
        self.assertEqual(status, 0)

    def test_a_missing_operation_fails(self):
        status, out = self.run_check(
            lambda lang, names: names - {"Placement.ownerIndex"} if lang == "node" else names)
        self.assertEqual(status, 1)
        self.assertIn("node: lacks Placement.ownerIndex", out)

    def test_an_unlisted_export_fails(self):
        status, out = self.run_check(
            lambda lang, names: names | {"Placement.Extra"} if lang == "go" else names)
        self.assertEqual(status, 1)
        self.assertIn("go: exports Placement.Extra", out)

    def test_another_spelling_fails_both_ways(self):
        def respell(lang, names):
            if lang == "python":
                return (names - {"Placement.owner"}) | {"Placement.Owner"}
            return names
        status, out = self.run_check(respell)
        self.assertEqual(status, 1)
        self.assertIn("python: lacks Placement.owner", out)
        self.assertIn("python: exports Placement.Owner", out)


if __name__ == "__main__":
    unittest.main()
