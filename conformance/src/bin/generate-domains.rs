//! `generate-domains PATH` writes policies/domains.json; `generate-domains --check PATH` fails when
//! the file differs from what the generator produces now.
fn main() -> std::process::ExitCode {
    hrwhash_conformance::cli::run(
        "generate-domains",
        "domains-v1 outputs are fixed once released: an intended change needs a new policy version (POLICIES.md).",
        hrwhash_conformance::domains::generate,
    )
}
