//! `generate-edge-vectors PATH` writes `vectors-edge.json`; `generate-edge-vectors --check PATH`
//! fails when the file differs from what the generator produces now.
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (check, path) = match args.as_slice() {
        [flag, path] if flag == "--check" => (true, path),
        [path] if !path.starts_with('-') => (false, path),
        _ => {
            eprintln!("usage: generate-edge-vectors [--check] PATH");
            return ExitCode::from(2);
        }
    };
    let fresh = hrwhash_conformance::edge::generate();
    if check {
        match std::fs::read_to_string(path) {
            Ok(current) if current == fresh => {
                println!("{path} is up to date");
                ExitCode::SUCCESS
            }
            Ok(_) => {
                eprintln!("{path} differs from what the generator produces.");
                eprintln!("Cases may be added, but hrw-v1 outputs are frozen: an existing case must never change.");
                eprintln!("To regenerate: cargo run -p hrwhash-conformance --bin generate-edge-vectors -- {path}");
                ExitCode::FAILURE
            }
            Err(e) => {
                eprintln!("cannot read {path}: {e}");
                ExitCode::FAILURE
            }
        }
    } else if let Err(e) = std::fs::write(path, fresh) {
        eprintln!("cannot write {path}: {e}");
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
