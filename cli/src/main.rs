//! `hrwhash`: simulate rendezvous placement, place keys, and plan membership changes.

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
mod ramp;
mod simulate;
mod slot_history;
mod slot_table;
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
    /// Count the keys that change owner (or replica set) between two memberships, and between which nodes.
    Diff(DiffArgs),
    /// List, per source and destination node, the keys to copy before switching memberships.
    Plan(PlanArgs),
    /// Check a view document; print its epoch, fingerprints and shares.
    View(view::ViewArgs),
    /// Check and replay a slot history (slot-table-v2); print its table fingerprint, final view
    /// fingerprint and the slot and owner of each KEY.
    SlotHistory(slot_history::SlotHistoryArgs),
    /// Split a change between two views into steps that each move at most --max-move of the keys.
    Ramp(ramp::RampArgs),
    /// The domains-v1 policy beside plain hrw-v1 on one zone/rack/host fleet: shares, spread over
    /// domains, and the keys moved when one domain of the spread level is removed.
    SimulateDomains(SimulateDomainsArgs),
}

#[derive(Args)]
struct SimulateDomainsArgs {
    /// The fleet: ZONES x RACKS x HOSTS, one node per host (node-0 ..), paths zone-Z/rack-R/host-H.
    #[arg(long, value_name = "ZxRxH", default_value = "3x10x33")]
    fleet: String,
    /// The spread level: an index (0: zone, 1: rack, 2: host) or zone, rack, host.
    #[arg(
        long,
        value_name = "LEVEL",
        default_value = "rack",
        allow_hyphen_values = true
    )]
    level: String,
    /// Replicas per key.
    #[arg(
        long,
        value_name = "K",
        default_value = "3",
        allow_hyphen_values = true
    )]
    k: String,
    /// Number of keys, key-0 .. key-(K-1).
    #[arg(long, value_name = "K", default_value_t = DEFAULT_KEYS.to_string(), allow_hyphen_values = true)]
    keys: String,
    /// Node weights, comma-separated, repeated over the nodes in order.
    #[arg(
        long,
        value_name = "W,W,...",
        default_value = "1,2,3,4",
        allow_hyphen_values = true
    )]
    weights: String,
    #[command(flatten)]
    common: Common,
}

#[derive(Args)]
struct Common {
    /// Placement seed, 32 hex digits (default: the public hrw-v1 seed).
    #[arg(long, value_name = "HEX")]
    seed: Option<String>,
    /// Machine-readable JSON output.
    #[arg(long)]
    json: bool,
    /// No progress bars (they are drawn on stderr only when it is a terminal).
    #[arg(long, short)]
    quiet: bool,
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
    /// Draw the keys per node before and after the addition and the removal to this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<OsString>,
    /// Also simulate a slot table (conformance/POLICIES.md, slot-table-v1) with this many slots,
    /// beside plain HRW on the same fleet and keys.
    #[arg(long, value_name = "S", allow_hyphen_values = true)]
    slots: Option<String>,
    /// The slot table's overload bound in parts per million (absent: the plain HRW slot table).
    #[arg(
        long,
        value_name = "PPM",
        requires = "slots",
        allow_hyphen_values = true
    )]
    overload_ppm: Option<String>,
    /// Compare placement policies on --nodes equal nodes instead: one row per policy (max/mean
    /// load, CV, keys moved when a node joins and leaves, ns per key). Repeatable: `plain`,
    /// `bounded:C` (bounded-load-v1 in batch mode, balance factor C >= 1), `slots:S[:PPM]`
    /// (slot-table-v1 with S slots, plain or with an overload bound in parts per million),
    /// `levelled:S` (slot-table-v2, the levelled table, with the join and leave applied to it).
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
    /// Place as an incumbent library does (conformance/PROFILES.md), e.g. go-redis-ring-v9.
    #[arg(long, value_name = "NAME", conflicts_with = "seed")]
    profile: Option<String>,
    /// `hrw` (the hrw-v1 ranking) or `domains` (the domains-v1 policy: --k replicas in distinct
    /// domains of --level).
    #[arg(long, value_name = "POLICY", default_value = "hrw")]
    policy: String,
    /// Each node's domain path, comma-separated, one per node: levels separated by `/`
    /// (zone-a/rack-1/host-3).
    #[arg(long, value_name = "PATH,PATH,...")]
    domains: Option<String>,
    /// The spread level of --policy domains: an index (0 is the first level of the paths) or a
    /// name from --levels.
    #[arg(
        long,
        value_name = "LEVEL",
        default_value = "0",
        allow_hyphen_values = true
    )]
    level: String,
    /// Names of the path levels, comma-separated (zone,rack,host), for --level.
    #[arg(long, value_name = "NAME,NAME,...")]
    levels: Option<String>,
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
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "from_profile",
        conflicts_with = "from_profile"
    )]
    from: Option<OsString>,
    /// The current membership is placed by this incumbent (conformance/PROFILES.md); its nodes
    /// are the node file --nodes.
    #[arg(long, value_name = "NAME", requires = "nodes")]
    from_profile: Option<String>,
    /// The node file of --from-profile.
    #[arg(long, value_name = "FILE", requires = "from_profile")]
    nodes: Option<OsString>,
    /// The new membership: a node file or a view.
    #[arg(long, value_name = "FILE")]
    to: OsString,
    /// The new membership is placed by this incumbent; --to is then a node file.
    #[arg(long, value_name = "NAME")]
    to_profile: Option<String>,
    /// File of keys, one per line (`-`: stdin).
    #[arg(long, value_name = "FILE", conflicts_with = "keys")]
    keys_from: Option<OsString>,
    /// Use N generated keys key-0 .. key-(N-1) [default: 100000].
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    keys: Option<String>,
    /// Compare each key's first R replicas (its ranking) instead of its owner: a key changes
    /// when the set of those nodes changes.
    #[arg(
        long,
        value_name = "R",
        default_value = "1",
        allow_hyphen_values = true
    )]
    k: String,
    #[command(flatten)]
    common: Common,
}

#[derive(Args)]
struct DiffArgs {
    #[command(flatten)]
    transition: TransitionArgs,
    /// Draw the keys (or replicas) per node before and after to this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<OsString>,
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
                quiet: a.common.quiet,
                plot: a.plot,
                slot_table: slot_table::options(a.slots.as_deref(), a.overload_ppm.as_deref())?,
            };
            simulate::run(&opts, out, a.common.json)
        }
        Command::Place(a) if a.profile.is_some() => {
            let name = a.profile.as_deref().unwrap_or_default();
            let profile = profile::parse_profile(name, "--profile")?;
            let nodes = input::place_nodes(&a.nodes, a.weights.as_deref())?;
            let placement =
                profile::build(profile, nodes, true, &|i| format!("--nodes index {i}"))?;
            let k = parse_usize(&a.k, "--k")?;
            profile::place(
                &placement,
                k,
                a.common.json,
                &profile::key_args(&a.keys),
                out,
            )
        }
        Command::Place(a) => {
            let placement =
                place_membership(&a.nodes, a.weights.as_deref(), a.common.seed.as_deref())?;
            let k = parse_usize(&a.k, "--k")?;
            let policy = match a.policy.as_str() {
                "hrw" => None,
                "domains" => {
                    let level = domains::parse_level(&a.level, a.levels.as_deref())?;
                    Some(domains::place_policy(
                        &placement,
                        a.domains.as_deref(),
                        level,
                    )?)
                }
                other => {
                    return Err(CliError::usage(
                        "InvalidArgument",
                        format!("--policy {other} is not hrw or domains"),
                    ))
                }
            };
            place::run(
                &placement,
                policy.as_ref(),
                k,
                a.common.json,
                a.common.quiet,
                &a.keys,
                out,
            )
        }
        Command::SimulateDomains(a) => {
            let (zones, racks, hosts) = domains::parse_fleet(&a.fleet)?;
            let opts = domains::SimOptions {
                zones,
                racks,
                hosts,
                level: domains::parse_level(&a.level, Some("zone,rack,host"))?,
                k: parse_usize(&a.k, "--k")?,
                keys: parse_count(&a.keys, "--keys")?,
                weights: parse_weights(&a.weights, "--weights")?,
                seed: parse_seed(a.common.seed.as_deref())?,
            };
            domains::simulate(&opts, out, a.common.json)
        }
        Command::Diff(a)
            if a.transition.from_profile.is_some() || a.transition.to_profile.is_some() =>
        {
            let (from, to, keys) = profile_switch(&a.transition)?;
            let common = &a.transition.common;
            profile::diff(from, to, keys, common.json, common.quiet, out)
        }
        Command::Diff(a) => {
            let (from, to, keys, mut opts) = transition(&a.transition)?;
            opts.plot = a.plot;
            migrate::diff(&from, &to, keys, &opts, out)
        }
        Command::Plan(a) => {
            let (from, to, keys, mut opts) = transition(&a.transition)?;
            opts.summary = a.summary;
            migrate::plan(&from, &to, keys, &opts, out)
        }
        Command::View(a) => view::run(&a, out),
        Command::Ramp(a) => ramp::run(&a, out),
        Command::SlotHistory(a) => slot_history::run(&a, out),
    }
}

/// The two sides of `diff --from-profile` / `--to-profile`: a side without a profile is hrw-v1.
fn profile_switch(a: &TransitionArgs) -> Result<(profile::Side, profile::Side, Keys), CliError> {
    let seed = parse_seed(a.common.seed.as_deref())?;
    let hrw = |path: &OsString| -> Result<profile::Side, CliError> {
        if view::is_view_file(path) {
            return Ok(profile::Side::Hrw(
                view::load(path, seed)?.placement().clone(),
            ));
        }
        Ok(profile::Side::Hrw(
            Membership::from_file(path)?.build(seed)?,
        ))
    };
    let side = |name: Option<&str>, flag: &str, path: &OsString| match name {
        Some(name) => Ok(profile::Side::Profile(profile::from_file(
            profile::parse_profile(name, flag)?,
            path,
        )?)),
        None => hrw(path),
    };
    let from_file = a.nodes.as_ref().or(a.from.as_ref());
    let from = side(
        a.from_profile.as_deref(),
        "--from-profile",
        from_file.unwrap_or(&a.to),
    )?;
    let to = side(a.to_profile.as_deref(), "--to-profile", &a.to)?;
    let count = a
        .keys
        .as_deref()
        .map(|n| parse_count(n, "--keys"))
        .transpose()?;
    let keys = Keys::from_args(count, a.keys_from.as_deref())?;
    Ok((from, to, keys))
}

type Memberships = (
    hrwhash::Placement,
    hrwhash::Placement,
    Keys,
    migrate::Options,
);

fn transition(a: &TransitionArgs) -> Result<Memberships, CliError> {
    if a.from_profile.is_some() || a.to_profile.is_some() {
        return Err(CliError::Usage(
            "plan does not take --from-profile or --to-profile: `hrwhash diff` compares a \
             profile with another placement"
                .into(),
        ));
    }
    let seed = parse_seed(a.common.seed.as_deref())?;
    let membership = |path: &OsString| -> Result<hrwhash::Placement, CliError> {
        if view::is_view_file(path) {
            return Ok(view::load(path, seed)?.placement().clone());
        }
        Membership::from_file(path)?.build(seed)
    };
    let from = membership(a.from.as_ref().unwrap_or(&a.to))?;
    let to = membership(&a.to)?;
    let count = a
        .keys
        .as_deref()
        .map(|n| parse_count(n, "--keys"))
        .transpose()?;
    let k = parse_usize(&a.k, "--k")?;
    let keys = Keys::from_args(count, a.keys_from.as_deref())?;
    let opts = migrate::Options {
        k,
        json: a.common.json,
        quiet: a.common.quiet,
        plot: None,
        summary: false,
    };
    Ok((from, to, keys, opts))
}
