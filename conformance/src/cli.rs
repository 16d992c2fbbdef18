//! The one command line of the generator bins: `NAME PATH` writes the file, `NAME --check PATH`
//! fails when the file differs from what the generator produces now.
use std::process::ExitCode;

/// Runs a generator bin named `name`; `frozen` says why a difference is not simply regenerated.
pub fn run(name: &str, frozen: &str, generate: impl FnOnce() -> String) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (check, path) = match args.as_slice() {
        [flag, path] if flag == "--check" => (true, path),
        [path] if !path.starts_with('-') => (false, path),
        _ => {
            eprintln!("usage: {name} [--check] PATH");
            return ExitCode::from(2);
        }
    };
    let fresh = generate();
    if !check {
        return match std::fs::write(path, fresh) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("cannot write {path}: {e}");
                ExitCode::FAILURE
            }
        };
    }
    match std::fs::read_to_string(path) {
        Ok(current) if current == fresh => {
            println!("{path} is up to date");
            ExitCode::SUCCESS
        }
        Ok(_) => {
            eprintln!("{path} differs from what the generator produces.");
            eprintln!("{frozen}");
            eprintln!("To regenerate: cargo run -p hrwhash-conformance --bin {name} -- {path}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            ExitCode::FAILURE
        }
    }
}
