//! `generate-slot-table-v2 PATH` writes policies/slot-table-v2.json; `generate-slot-table-v2
//! --check PATH` fails when the file differs from what the generator produces now.
fn main() -> std::process::ExitCode {
    hrwhash_conformance::cli::run(
        "generate-slot-table-v2",
        "slot-table-v2 outputs are fixed: an intended change needs a new policy version (POLICIES.md).",
        hrwhash_conformance::slot_table_v2::generate,
    )
}
