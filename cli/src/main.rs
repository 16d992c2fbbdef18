//! `hrwhash`: simulate rendezvous placement, place keys, and plan membership changes.

mod error;
mod input;
mod migrate;
mod place;
mod plot;
mod ramp;
mod simulate;
mod stats;
mod view;

use std::ffi::OsString;
use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::error::CliError;
use crate::input::{arg_bytes, for_each_stdin_key, parse_seed, parse_weights, Keys, Membership};

/// Keys used when none are given: `key-0` .. `key-99999`.
const DEFAULT_KEYS: u64 = 100_000;
/// Bounds the memory a simulation can ask for.
const MAX_NODES: usize = 100_000;

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
    /// Balance, keys moved on add/remove (vs hash % N) and weighted shares, on generated keys.
    Simulate(SimulateArgs),
    /// Print the owner (or first k nodes) of each KEY, or of each stdin line when no KEY is given.
    Place(PlaceArgs),
    /// Count the keys that change owner between two node files, and between which nodes.
    Diff(TransitionArgs),
    /// List, per source and destination node, the keys to copy before switching memberships.
    Plan(PlanArgs),
    /// Check a view document; print its epoch, fingerprints and shares.
    View(view::ViewArgs),
    /// Split a change between two views into steps that each move at most --max-move of the keys.
    Ramp(ramp::RampArgs),
}

#[derive(Args)]
struct Common {
    /// Placement seed, 32 hex digits (default: the public hrw-v1 seed).
    #[arg(long, value_name = "HEX")]
    seed: Option<String>,
    /// Machine-readable JSON output.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct SimulateArgs {
    /// Number of equal nodes, node-0 .. node-(N-1).
    #[arg(long, value_name = "N", default_value_t = 5)]
    nodes: usize,
    /// Number of keys, key-0 .. key-(K-1).
    #[arg(long, value_name = "K", default_value_t = DEFAULT_KEYS)]
    keys: u64,
    /// Weights of the weighted fleet, comma-separated.
    #[arg(
        long,
        value_name = "W,W,...",
        default_value = "1,2,3,4",
        allow_hyphen_values = true
    )]
    weights: String,
    /// How many nodes to add.
    #[arg(long, value_name = "A", default_value_t = 1)]
    add: usize,
    /// How many nodes to remove (the first ones).
    #[arg(long, value_name = "R", default_value_t = 1)]
    remove: usize,
    #[command(flatten)]
    common: Common,
}

#[derive(Args)]
struct PlaceArgs {
    /// Node ids, comma-separated.
    #[arg(long, value_name = "ID,ID,...")]
    nodes: String,
    /// Node weights, comma-separated, one per node (default: all 1).
    #[arg(long, value_name = "W,W,...", allow_hyphen_values = true)]
    weights: Option<String>,
    /// Print the first k nodes of each key's ranking instead of only the owner.
    #[arg(long, value_name = "K", default_value_t = 1)]
    k: usize,
    #[command(flatten)]
    common: Common,
    /// Keys to place; without any, keys are read from stdin, one per line.
    #[arg(value_name = "KEY")]
    keys: Vec<OsString>,
}

#[derive(Args)]
struct TransitionArgs {
    /// Node file of the current membership: one `id[,weight[,domain]]` per line.
    #[arg(long, value_name = "FILE")]
    from: OsString,
    /// Node file of the new membership.
    #[arg(long, value_name = "FILE")]
    to: OsString,
    /// File of keys, one per line.
    #[arg(long, value_name = "FILE", conflicts_with = "keys")]
    keys_from: Option<OsString>,
    /// Use N generated keys key-0 .. key-(N-1) [default: 100000].
    #[arg(long, value_name = "N")]
    keys: Option<u64>,
    #[command(flatten)]
    common: Common,
}

#[derive(Args)]
struct PlanArgs {
    #[command(flatten)]
    transition: TransitionArgs,
    /// Only count keys per source and destination; do not list them.
    #[arg(long)]
    summary: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let result = run(cli.command, &mut out).and_then(|()| out.flush().map_err(CliError::from));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A reader such as `head` closing the pipe early is not a failure.
        Err(CliError::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hrwhash: error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

fn run(command: Command, out: &mut dyn Write) -> Result<(), CliError> {
    match command {
        Command::Simulate(a) => {
            let opts = simulate::Options {
                nodes: a.nodes,
                keys: a.keys,
                weights: parse_weights(&a.weights, "--weights")?,
                add: a.add,
                remove: a.remove,
                seed: parse_seed(a.common.seed.as_deref())?,
            };
            simulate::run(&opts, out, a.common.json)
        }
        Command::Place(a) => {
            if a.k == 0 {
                return Err(CliError::Usage("--k must be at least 1".into()));
            }
            let seed = parse_seed(a.common.seed.as_deref())?;
            let placement = Membership::from_args(&a.nodes, a.weights.as_deref())?.build(seed)?;
            let mut printer = place::Printer::new(&placement, a.k, a.common.json, out);
            if a.keys.is_empty() {
                for_each_stdin_key(|key| printer.key(key))?;
            } else {
                for key in &a.keys {
                    printer.key(&arg_bytes(key))?;
                }
            }
            printer.finish()
        }
        Command::Diff(a) => {
            let (from, to, keys) = transition(&a)?;
            migrate::diff(&from, &to, &keys, a.common.json, out)
        }
        Command::Plan(a) => {
            let (from, to, keys) = transition(&a.transition)?;
            migrate::plan(&from, &to, &keys, a.summary, a.transition.common.json, out)
        }
        Command::View(a) => view::run(&a, out),
        Command::Ramp(a) => ramp::run(&a, out),
    }
}

fn transition(
    a: &TransitionArgs,
) -> Result<(hrwhash::Placement, hrwhash::Placement, Keys), CliError> {
    let seed = parse_seed(a.common.seed.as_deref())?;
    let from = Membership::from_file(&a.from)?.build(seed)?;
    let to = Membership::from_file(&a.to)?.build(seed)?;
    let keys = Keys::from_args(a.keys, a.keys_from.as_deref())?;
    Ok((from, to, keys))
}
