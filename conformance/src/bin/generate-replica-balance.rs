//! `generate-replica-balance PATH` writes policies/replica-balance-v2.json;
//! `generate-replica-balance --check PATH` fails when the file differs from what the generator
//! produces now.
fn main() -> std::process::ExitCode {
    hrwhash_conformance::cli::run(
        "generate-replica-balance",
        "replica-balance-v2 outputs are fixed: an intended change needs a new policy version (POLICIES.md).",
        hrwhash_conformance::replica_balance::generate,
    )
}
