//! `generate [--check] [NAME...]`: writes the conformance vectors files named (all of them when
//! none is), or with `--check` fails when one differs from what its generator produces now.
fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    hrwhash_conformance::cli::run(&args)
}
