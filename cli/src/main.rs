//! `hrwhash`: simulate rendezvous placement, place keys, and plan membership changes.
//!
//! Each subcommand is a module of `cmd/` with its arguments and its `run`; this file parses the
//! command line, dispatches, and reports errors.

mod cmd;
mod compare;
mod domains;
mod error;
mod input;
mod migrate;
mod output;
mod place;
mod plot;
mod profile;
mod progress;
mod simulate;
mod slot_table;
mod stats;
mod view;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::cmd::value::Rejected;
use crate::error::CliError;

#[derive(Parser)]
#[command(
    name = "hrwhash",
    version,
    about = "Rendezvous (highest-random-weight) hashing, algorithm hrw-v1: simulate, place keys, diff memberships, plan migrations"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Balance, keys moved on add/remove (vs hash % N) and weighted shares, on generated keys;
    /// with --policy, placement policies side by side.
    Simulate(cmd::simulate::Args),
    /// Print the owner (or first k nodes) of each KEY, or of each stdin line when no KEY is given.
    Place(cmd::place::Args),
    /// Count the keys that change owner (or replica set) between two memberships, and between which nodes.
    Diff(cmd::diff::Args),
    /// List, per source and destination node, the keys to copy before switching memberships.
    Plan(cmd::plan::Args),
    /// Check a view document and print its epoch, fingerprints and shares, or write the view of
    /// a node file.
    View(cmd::view::Args),
    /// Load a slot table from its document (levelled or ranked); print its table fingerprint,
    /// final view fingerprint and the slot and owner of each KEY.
    SlotTable(cmd::slot_table::Args),
    /// Split a change between two memberships into steps that each move at most --max-move of
    /// the keys.
    Ramp(cmd::ramp::Args),
    /// The domains-v1 policy beside plain hrw-v1 on one zone/rack/host fleet: shares, spread over
    /// domains, and the keys moved when one domain of the spread level is removed.
    SimulateDomains(cmd::simulate_domains::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // A flag value its typed parser rejected is reported like every other error; the rest
        // (unknown flags, --help, --version) is clap's to print.
        Err(e) => match std::error::Error::source(&e).and_then(|s| s.downcast_ref::<Rejected>()) {
            Some(Rejected(e)) => return report(e),
            None => e.exit(),
        },
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let result = if output::stdout_was_closed() {
        Err(CliError::Output(io::Error::other(
            "standard output is closed",
        )))
    } else {
        run(cli.command, &mut out).and_then(|()| out.flush().map_err(CliError::from))
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => report(&e),
    }
}

fn run(command: Command, out: &mut dyn Write) -> Result<(), CliError> {
    match command {
        Command::Simulate(a) => cmd::simulate::run(a, out),
        Command::Place(a) => cmd::place::run(a, out),
        Command::Diff(a) => cmd::diff::run(a, out),
        Command::Plan(a) => cmd::plan::run(a, out),
        Command::View(a) => cmd::view::run(&a, out),
        Command::SlotTable(a) => cmd::slot_table::run(&a, out),
        Command::Ramp(a) => cmd::ramp::run(&a, out),
        Command::SimulateDomains(a) => cmd::simulate_domains::run(a, out),
    }
}

/// Every error leaves through here: one line on stderr, `error[<Variant>]` when the contract
/// names it, and the exit status of its kind. A reader that closed the pipe early (`hrwhash ...
/// | head`) took all it wanted: that ends quietly with status 0, as in ripgrep.
fn report(e: &CliError) -> ExitCode {
    if matches!(e, CliError::Output(io) if io.kind() == io::ErrorKind::BrokenPipe) {
        return ExitCode::SUCCESS;
    }
    match e.variant() {
        Some(variant) => eprintln!("hrwhash: error[{variant}]: {e}"),
        None => eprintln!("hrwhash: error: {e}"),
    }
    ExitCode::from(e.exit_code() as u8)
}
