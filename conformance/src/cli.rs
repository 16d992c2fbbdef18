//! The command line of the `generate` bin: `generate [--check] [NAME...]` writes (or, with
//! `--check`, compares) the vectors files of [`crate::FILES`] named, or all of them.
use std::process::ExitCode;

use crate::{VectorsFile, FILES};

/// Runs `generate` with `args` (without the program name).
pub fn run(args: &[String]) -> ExitCode {
    let check = args.iter().any(|a| a == "--check");
    let names: Vec<&String> = args.iter().filter(|a| *a != "--check").collect();
    if let Some(bad) = names
        .iter()
        .find(|n| n.starts_with('-') || !FILES.iter().any(|f| f.name == n.as_str()))
    {
        eprintln!("generate: unknown vectors file {bad}");
        eprintln!("usage: generate [--check] [NAME...]; the names:");
        for f in FILES {
            eprintln!("  {:<24} conformance/{}", f.name, f.path);
        }
        return ExitCode::from(2);
    }
    let chosen = FILES
        .iter()
        .filter(|f| names.is_empty() || names.iter().any(|n| *n == f.name));
    let mut status = ExitCode::SUCCESS;
    for file in chosen {
        let done = if check { compare(file) } else { write(file) };
        if !done {
            status = ExitCode::FAILURE;
        }
    }
    status
}

fn write(file: &VectorsFile) -> bool {
    let path = file.full_path();
    match std::fs::write(&path, (file.generate)()) {
        Ok(()) => true,
        Err(e) => {
            eprintln!("cannot write {}: {e}", path.display());
            false
        }
    }
}

fn compare(file: &VectorsFile) -> bool {
    let path = file.full_path();
    match std::fs::read_to_string(&path) {
        Ok(current) if current == (file.generate)() => {
            println!("conformance/{} is up to date", file.path);
            true
        }
        Ok(_) => {
            eprintln!(
                "conformance/{} differs from what the generator produces.",
                file.path
            );
            eprintln!("{}", file.frozen);
            eprintln!("To regenerate: {}", file.regenerate_command());
            false
        }
        Err(e) => {
            eprintln!("cannot read {}: {e}", path.display());
            false
        }
    }
}
