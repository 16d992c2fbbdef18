//! One module per subcommand: each owns its clap arguments and its `run`; `main` only parses and
//! dispatches. What several commands share (the seed, `--json`, `--quiet`, the two memberships
//! of `diff` and `plan`) is here.

pub mod diff;
pub mod live;
pub mod place;
pub mod plan;
pub mod ramp;
pub mod simulate;
pub mod simulate_domains;
pub mod slot_table;
pub mod value;
pub mod view;
pub mod view_publish;
pub mod view_slices;
pub mod view_watch;

use std::ffi::OsString;

use clap::Args;

use crate::error::CliError;
use crate::input::{parse_seed, Keys};
use value::{COUNT, SIZE};

/// Keys used when none are given: `key-0` .. `key-99999`.
pub const DEFAULT_KEYS: u64 = 100_000;
/// Bounds the memory a simulation can ask for.
pub const MAX_NODES: usize = 100_000;

#[derive(Args)]
pub struct Common {
    /// Placement seed, 32 hex digits (default: the public hrw-v1 seed).
    #[arg(long, value_name = "HEX")]
    pub seed: Option<String>,
    /// Machine-readable JSON output.
    #[arg(long)]
    pub json: bool,
    /// No progress bars (they are drawn on stderr only when it is a terminal).
    #[arg(long, short)]
    pub quiet: bool,
}

/// The memberships and keys of `diff` and `plan`. Which flag names the current membership
/// (`--from`, or `diff --from-profile`) is each command's own.
#[derive(Args)]
pub struct Transition {
    /// The current membership: a node file (one `id[,weight[,domain]]` per line, or a JSON
    /// array of nodes) or a view (a JSON object, conformance/VIEW.md).
    #[arg(long, value_name = "FILE")]
    pub from: Option<OsString>,
    /// The new membership: a node file or a view.
    #[arg(long, value_name = "FILE")]
    pub to: OsString,
    /// File of keys, one per line (`-`: stdin).
    #[arg(long, value_name = "FILE", conflicts_with = "keys")]
    pub keys_from: Option<OsString>,
    /// Use N generated keys key-0 .. key-(N-1) [default: 100000].
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = COUNT)]
    pub keys: Option<u64>,
    /// Compare each key's R replicas (spread over the nodes' failure domains, as the keys are
    /// stored) instead of its owner: a key changes when the set of those nodes changes.
    #[arg(long, value_name = "R", default_value = "1", allow_hyphen_values = true, value_parser = SIZE)]
    pub k: usize,
    #[command(flatten)]
    pub common: Common,
}

impl Transition {
    pub fn seed(&self) -> Result<hrwhash::Seed, CliError> {
        parse_seed(self.common.seed.as_deref())
    }

    /// `--keys N` or `--keys-from FILE`, opened now so that a missing file is reported before
    /// any output.
    pub fn keys(&self) -> Result<Keys, CliError> {
        Keys::from_args(self.keys, self.keys_from.as_deref())
    }

    /// The two hrw-v1 memberships, each a view or a node file.
    pub fn placements(&self) -> Result<(hrwhash::Placement, hrwhash::Placement), CliError> {
        let seed = self.seed()?;
        let from = crate::view::placement_file(self.from.as_ref().unwrap_or(&self.to), seed)?;
        let to = crate::view::placement_file(&self.to, seed)?;
        Ok((from, to))
    }

    pub fn options(&self) -> crate::migrate::Options {
        crate::migrate::Options {
            k: self.k,
            json: self.common.json,
            quiet: self.common.quiet,
            plot: None,
            summary: false,
        }
    }
}
