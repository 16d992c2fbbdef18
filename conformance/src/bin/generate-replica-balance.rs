//! `generate-replica-balance PATH` writes policies/replica-balance.json;
//! `generate-replica-balance --check PATH` fails when the file differs from what the generator
//! produces now.
fn main() -> std::process::ExitCode {
    hrwhash_conformance::cli::run(
        "generate-replica-balance",
        "replica-balance-v1 outputs are fixed: an intended change needs a new policy version (POLICIES.md).",
        hrwhash_conformance::replica_balance::generate,
    )
}
