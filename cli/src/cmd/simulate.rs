//! `hrwhash simulate`: balance, movement and weights on generated keys; with `--policy`, the
//! placement policies side by side instead.

use std::ffi::OsString;
use std::io::Write;

use hrwhash::policy::SlotMode;

use super::value::{COUNT, PPM, SIZE};
use super::{Common, DEFAULT_KEYS, MAX_NODES};
use crate::error::CliError;
use crate::input::{parse_seed, parse_weights};
use crate::{compare, simulate};

#[derive(clap::Args)]
pub struct Args {
    /// Number of equal nodes, node-0 .. node-(N-1).
    #[arg(long, value_name = "N", default_value = "5", allow_hyphen_values = true, value_parser = SIZE)]
    nodes: usize,
    /// Number of keys, key-0 .. key-(K-1).
    #[arg(long, value_name = "K", default_value_t = DEFAULT_KEYS, allow_hyphen_values = true, value_parser = COUNT)]
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
    #[arg(long, value_name = "A", default_value = "1", allow_hyphen_values = true, value_parser = SIZE)]
    add: usize,
    /// How many nodes to remove (the first ones).
    #[arg(long, value_name = "R", default_value = "1", allow_hyphen_values = true, value_parser = SIZE)]
    remove: usize,
    /// Draw the keys per node before and after the addition and the removal to this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<OsString>,
    /// Also simulate a slot table (conformance/POLICIES.md, "Slot tables") with this many slots,
    /// beside plain HRW on the same fleet and keys; the join and leave are applied to it.
    #[arg(long, value_name = "S", allow_hyphen_values = true, value_parser = COUNT)]
    slots: Option<u64>,
    /// The slot table's mode: `levelled` (slot-table-v2, each change moves only the changed
    /// node's slots) or `ranked` (slot-table-v1, a function of the membership).
    #[arg(
        long,
        value_enum,
        value_name = "MODE",
        default_value = "levelled",
        requires = "slots"
    )]
    mode: Mode,
    /// The ranked slot table's overload bound in parts per million (absent: the plain HRW slot
    /// table); needs `--mode ranked`.
    #[arg(long, value_name = "PPM", requires = "slots", allow_hyphen_values = true, value_parser = PPM)]
    overload_ppm: Option<u32>,
    /// Compare placement policies on --nodes equal nodes instead: one row per policy (max/mean
    /// load, CV, keys moved when a node joins and leaves, ns per key). Repeatable: `plain`,
    /// `bounded:C` (bounded-load-v1 in batch mode, balance factor C >= 1), `ranked:S[:PPM]`
    /// (the ranked slot table, slot-table-v1, with S slots, plain or with an overload bound in
    /// parts per million),
    /// `levelled:S` (slot-table-v2, the levelled table, with the join and leave applied to it).
    /// The comparison has its own join and leave, so it takes none of --weights, --add,
    /// --remove, --plot, --slots and --mode.
    #[arg(
        long = "policy",
        value_name = "POLICY",
        conflicts_with_all = ["weights", "add", "remove", "plot", "slots", "mode"]
    )]
    policy: Vec<String>,
    #[command(flatten)]
    common: Common,
}

/// A slot table's mode, as `--mode` names it.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    Levelled,
    Ranked,
}

/// The mode `--mode` and `--overload-ppm` name: a bound belongs to a ranked table only, as in
/// every language.
pub fn slot_mode(mode: Mode, overload_ppm: Option<u32>) -> Result<SlotMode, CliError> {
    match (mode, overload_ppm) {
        (Mode::Ranked, overload_ppm) => Ok(SlotMode::Ranked { overload_ppm }),
        (Mode::Levelled, None) => Ok(SlotMode::Levelled),
        (Mode::Levelled, Some(_)) => Err(CliError::usage(
            "InvalidArgument",
            "--overload-ppm bounds a ranked slot table only: add --mode ranked",
        )),
    }
}

pub fn run(a: Args, out: &mut dyn Write) -> Result<(), CliError> {
    if a.policy.is_empty() {
        let opts = simulate::Options {
            nodes: a.nodes,
            keys: a.keys,
            weights: parse_weights(&a.weights, "--weights")?,
            add: a.add,
            remove: a.remove,
            seed: parse_seed(a.common.seed.as_deref())?,
            quiet: a.common.quiet,
            plot: a.plot,
            slot_table: match a.slots {
                Some(s) => Some((s, slot_mode(a.mode, a.overload_ppm)?)),
                None => None,
            },
        };
        return simulate::run(&opts, out, a.common.json);
    }
    let policies = a
        .policy
        .iter()
        .map(|p| compare::parse(p))
        .collect::<Result<Vec<_>, _>>()?;
    if a.nodes > MAX_NODES {
        return Err(CliError::usage(
            "ResultTooLarge",
            format!(
                "--nodes {} is more than the {MAX_NODES} nodes a simulation holds",
                a.nodes
            ),
        ));
    }
    let seed = parse_seed(a.common.seed.as_deref())?;
    compare::run(&policies, a.nodes, a.keys, seed, out, a.common.json)
}
