//! `hrwhash simulate-domains`: the domains-v1 policy beside plain hrw-v1 on one generated
//! zone/rack/host fleet.

use std::io::Write;

use super::value::{Typed, COUNT, SIZE};
use super::{Common, DEFAULT_KEYS};
use crate::domains;
use crate::error::CliError;
use crate::input::{parse_seed, parse_weights};

/// `--fleet ZxRxH`.
const FLEET: Typed<(usize, usize, usize)> = Typed(|text, _| domains::parse_fleet(text));

#[derive(clap::Args)]
pub struct Args {
    /// The fleet: ZONES x RACKS x HOSTS, one node per host (node-0 ..), paths zone-Z/rack-R/host-H.
    #[arg(long, value_name = "ZxRxH", default_value = "3x10x33", value_parser = FLEET)]
    fleet: (usize, usize, usize),
    /// The spread level: an index (0: zone, 1: rack, 2: host) or zone, rack, host.
    #[arg(
        long,
        value_name = "LEVEL",
        default_value = "rack",
        allow_hyphen_values = true
    )]
    level: String,
    /// Replicas per key.
    #[arg(long, value_name = "K", default_value = "3", allow_hyphen_values = true, value_parser = SIZE)]
    k: usize,
    /// Number of keys, key-0 .. key-(K-1).
    #[arg(long, value_name = "K", default_value_t = DEFAULT_KEYS, allow_hyphen_values = true, value_parser = COUNT)]
    keys: u64,
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

pub fn run(a: Args, out: &mut dyn Write) -> Result<(), CliError> {
    let (zones, racks, hosts) = a.fleet;
    let opts = domains::SimOptions {
        zones,
        racks,
        hosts,
        level: domains::parse_level(&a.level, Some("zone,rack,host"))?,
        k: a.k,
        keys: a.keys,
        weights: parse_weights(&a.weights, "--weights")?,
        seed: parse_seed(a.common.seed.as_deref())?,
    };
    domains::simulate(&opts, out, a.common.json)
}
