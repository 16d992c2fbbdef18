//! `generate-views PATH` writes views.json; `generate-views --check PATH` fails when the file
//! differs from what the generator produces now.
fn main() -> std::process::ExitCode {
    hrwhash_conformance::cli::run(
        "generate-views",
        "hrwhash-view-v1 outputs are fixed: an intended change needs a new view format tag (VIEW.md).",
        hrwhash_conformance::views::generate,
    )
}
