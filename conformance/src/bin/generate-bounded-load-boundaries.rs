//! `generate-bounded-load-boundaries PATH` writes policies/bounded-load-boundaries.json;
//! `generate-bounded-load-boundaries --check PATH` fails when the file differs from what the
//! generator produces now.
fn main() -> std::process::ExitCode {
    hrwhash_conformance::cli::run(
        "generate-bounded-load-boundaries",
        "bounded-load-v1 outputs are fixed: an intended change needs a new policy version (POLICIES.md).",
        hrwhash_conformance::bounded_load_boundaries::generate,
    )
}
