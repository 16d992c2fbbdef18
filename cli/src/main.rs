//! `hrwhash`: simulate rendezvous placement, place keys, and plan membership changes.

mod compare;
mod error;
mod input;
mod migrate;
mod output;
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
use crate::input::{
    parse_count, parse_seed, parse_usize, parse_weights, place_membership, Keys, Membership,
};

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
    #[arg(
        long,
        value_name = "N",
        default_value = "5",
        allow_hyphen_values = true
    )]
    nodes: String,
    /// Number of keys, key-0 .. key-(K-1).
    #[arg(long, value_name = "K", default_value_t = DEFAULT_KEYS.to_string(), allow_hyphen_values = true)]
    keys: String,
    /// Weights of the weighted fleet, comma-separated.
    #[arg(
        long,
        value_name = "W,W,...",
        default_value = "1,2,3,4",
        allow_hyphen_values = true
    )]
    weights: String,
    /// How many nodes to add.
    #[arg(
        long,
        value_name = "A",
        default_value = "1",
        allow_hyphen_values = true
    )]
    add: String,
    /// How many nodes to remove (the first ones).
    #[arg(
        long,
        value_name = "R",
        default_value = "1",
        allow_hyphen_values = true
    )]
    remove: String,
    /// Compare placement policies on --nodes equal nodes instead: one row per policy (max/mean
    /// load, CV, keys moved when a node joins and leaves, ns per key). Repeatable: `plain`,
    /// `bounded:C` (bounded-load-v1 in batch mode, balance factor C >= 1).
    #[arg(long = "policy", value_name = "POLICY")]
    policy: Vec<String>,
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
    #[arg(
        long,
        value_name = "K",
        default_value = "1",
        allow_hyphen_values = true
    )]
    k: String,
    #[command(flatten)]
    common: Common,
    /// Keys to place; without any, keys are read from stdin, one per line.
    #[arg(value_name = "KEY")]
    keys: Vec<OsString>,
}

#[derive(Args)]
struct TransitionArgs {
    /// The current membership: a node file (one `id[,weight[,domain]]` per line, or a JSON
    /// array of nodes) or a view (a JSON object, conformance/VIEW.md).
    #[arg(long, value_name = "FILE")]
    from: OsString,
    /// The new membership: a node file or a view.
    #[arg(long, value_name = "FILE")]
    to: OsString,
    /// File of keys, one per line.
    #[arg(long, value_name = "FILE", conflicts_with = "keys")]
    keys_from: Option<OsString>,
    /// Use N generated keys key-0 .. key-(N-1) [default: 100000].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    keys: Option<String>,
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
    let result = if output::stdout_was_closed() {
        Err(CliError::Output(io::Error::other(
            "standard output is closed",
        )))
    } else {
        run(cli.command, &mut out).and_then(|()| out.flush().map_err(CliError::from))
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // Output that did not arrive is a failure, also when a reader closed the pipe early.
        Err(e) => {
            match e.variant() {
                Some(variant) => eprintln!("hrwhash: error[{variant}]: {e}"),
                None => eprintln!("hrwhash: error: {e}"),
            }
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

fn run(command: Command, out: &mut dyn Write) -> Result<(), CliError> {
    match command {
        Command::Simulate(a) if !a.policy.is_empty() => {
            let policies = a
                .policy
                .iter()
                .map(|p| compare::parse(p))
                .collect::<Result<Vec<_>, _>>()?;
            let nodes = parse_usize(&a.nodes, "--nodes")?;
            if nodes > MAX_NODES {
                return Err(CliError::usage(
                    "ResultTooLarge",
                    format!(
                        "--nodes {nodes} is more than the {MAX_NODES} nodes a simulation holds"
                    ),
                ));
            }
            let keys = parse_count(&a.keys, "--keys")?;
            let seed = parse_seed(a.common.seed.as_deref())?;
            compare::run(&policies, nodes, keys, seed, out, a.common.json)
        }
        Command::Simulate(a) => {
            let opts = simulate::Options {
                nodes: parse_usize(&a.nodes, "--nodes")?,
                keys: parse_count(&a.keys, "--keys")?,
                weights: parse_weights(&a.weights, "--weights")?,
                add: parse_usize(&a.add, "--add")?,
                remove: parse_usize(&a.remove, "--remove")?,
                seed: parse_seed(a.common.seed.as_deref())?,
            };
            simulate::run(&opts, out, a.common.json)
        }
        Command::Place(a) => {
            let placement =
                place_membership(&a.nodes, a.weights.as_deref(), a.common.seed.as_deref())?;
            let k = parse_usize(&a.k, "--k")?;
            place::run(&placement, k, a.common.json, &a.keys, out)
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
    let membership = |path: &OsString| -> Result<hrwhash::Placement, CliError> {
        if view::is_view_file(path) {
            return Ok(view::load(path, seed)?.placement().clone());
        }
        Membership::from_file(path)?.build(seed)
    };
    let from = membership(&a.from)?;
    let to = membership(&a.to)?;
    let count = a
        .keys
        .as_deref()
        .map(|n| parse_count(n, "--keys"))
        .transpose()?;
    let keys = Keys::from_args(count, a.keys_from.as_deref())?;
    Ok((from, to, keys))
}
