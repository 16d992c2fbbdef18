//! `generate-edge-vectors PATH` writes `vectors-edge.json`; `generate-edge-vectors --check PATH`
//! fails when the file differs from what the generator produces now.
fn main() -> std::process::ExitCode {
    hrwhash_conformance::cli::run(
        "generate-edge-vectors",
        "Cases may be added, but hrw-v1 outputs are frozen: an existing case must never change.",
        hrwhash_conformance::edge::generate,
    )
}
