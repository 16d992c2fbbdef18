//! `generate-slot-table PATH` writes policies/slot-table.json; `generate-slot-table --check PATH`
//! fails when the file differs from what the generator produces now.
fn main() -> std::process::ExitCode {
    hrwhash_conformance::cli::run(
        "generate-slot-table",
        "slot-table-v1 outputs are fixed: an intended change needs a new policy version (POLICIES.md).",
        hrwhash_conformance::slot_table::generate,
    )
}
