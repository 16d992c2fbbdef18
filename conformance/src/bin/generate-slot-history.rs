//! `generate-slot-history PATH` writes policies/slot-history-v1.json; `generate-slot-history
//! --check PATH` fails when the file differs from what the generator produces now.
fn main() -> std::process::ExitCode {
    hrwhash_conformance::cli::run(
        "generate-slot-history",
        "hrwhash-slot-history-v1 outputs are fixed: an intended change needs a new format tag (SLOT-HISTORY.md).",
        hrwhash_conformance::slot_history::generate,
    )
}
