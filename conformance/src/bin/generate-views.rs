//! `generate-views PATH` writes views.json; `generate-views --check PATH` fails when the file
//! differs from what the generator produces now.
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (check, path) = match args.as_slice() {
        [flag, path] if flag == "--check" => (true, path),
        [path] if !path.starts_with('-') => (false, path),
        _ => {
            eprintln!("usage: generate-views [--check] PATH");
            return ExitCode::from(2);
        }
    };
    let fresh = hrwhash_conformance::views::generate();
    if check {
        match std::fs::read_to_string(path) {
            Ok(current) if current == fresh => {
                println!("{path} is up to date");
                ExitCode::SUCCESS
            }
            Ok(_) => {
                eprintln!("{path} differs from what the generator produces.");
                eprintln!("hrwhash-view-v1 outputs are fixed: an intended change needs a new view format tag (VIEW.md).");
                eprintln!("To regenerate: cargo run -p hrwhash-conformance --bin generate-views -- {path}");
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
