//! `generate-errors ROOT` writes every file generated from ROOT/conformance/errors.json (the
//! registry `hrwhash_errors::OUTPUTS`); `generate-errors --check ROOT` fails when
//! one of them differs from what the generator produces now, and prints the command that
//! regenerates them.
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (check, root) = match args.as_slice() {
        [flag, root] if flag == "--check" => (true, root),
        [root] if !root.starts_with('-') => (false, root),
        _ => {
            eprintln!("usage: generate-errors [--check] ROOT");
            return ExitCode::from(2);
        }
    };
    let root = Path::new(root);
    let outputs = match hrwhash_errors::generate_all(root) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("generate-errors: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut stale = false;
    for (path, current, fresh) in outputs {
        if current == fresh {
            if check {
                println!("{path} is up to date");
            }
            continue;
        }
        if check {
            eprintln!("{path} differs from what conformance/errors.json generates.");
            stale = true;
        } else if let Err(e) = std::fs::write(root.join(path), fresh) {
            eprintln!("cannot write {path}: {e}");
            return ExitCode::FAILURE;
        }
    }
    if stale {
        eprintln!(
            "To regenerate: make errors (cargo run -p hrwhash-errors --bin generate-errors -- .)"
        );
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
