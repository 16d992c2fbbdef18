//! `generate-vectors PATH` writes the vectors; `generate-vectors --check PATH` fails when the file
//! differs from what the generator produces now.
fn main() -> std::process::ExitCode {
    hrwhash_conformance::cli::run(
        "generate-vectors",
        "hrw-v1 outputs are frozen: if this change is intended it needs a new algorithm version.",
        hrwhash_conformance::generate,
    )
}
