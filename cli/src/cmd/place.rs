//! `hrwhash place`: the owner, or the first k nodes, of each key: by hrw-v1, by the domains-v1
//! policy, or by an incumbent's profile.

use std::ffi::OsString;
use std::io::Write;

use clap::ArgGroup;

use super::value::{Typed, SIZE};
use super::Common;
use crate::error::CliError;
use crate::input::{parse_seed, place_membership, place_nodes, Membership};
use crate::{domains, place, profile, view};

#[derive(Clone, Copy, PartialEq)]
pub enum Policy {
    Hrw,
    Domains,
}

/// `--policy`: `hrw` or `domains`.
const POLICY: Typed<Policy> = Typed(|text, flag| match text {
    "hrw" => Ok(Policy::Hrw),
    "domains" => Ok(Policy::Domains),
    other => Err(CliError::usage(
        "InvalidArgument",
        format!("{flag} {other} is not hrw or domains"),
    )),
});

#[derive(clap::Args)]
#[command(group(ArgGroup::new("membership").required(true).args(["nodes", "nodes_file", "view"])))]
pub struct Args {
    /// Node ids, comma-separated.
    #[arg(long, value_name = "ID,ID,...")]
    nodes: Option<OsString>,
    /// The nodes from a node file instead (one `id[,weight[,domain]]` per line, or a JSON array
    /// of nodes; the files of `diff` and `plan`).
    #[arg(long, value_name = "FILE")]
    nodes_file: Option<OsString>,
    /// The nodes from a view document instead (conformance/VIEW.md).
    #[arg(long, value_name = "FILE")]
    view: Option<OsString>,
    /// Node weights, comma-separated, one per node of --nodes (default: all 1).
    #[arg(
        long,
        value_name = "W,W,...",
        allow_hyphen_values = true,
        conflicts_with_all = ["nodes_file", "view"]
    )]
    weights: Option<String>,
    /// Print the first k nodes of each key's ranking instead of only the owner.
    #[arg(long, value_name = "K", default_value = "1", allow_hyphen_values = true, value_parser = SIZE)]
    k: usize,
    /// Print each key's --k replicas in distinct failure domains (the domains of a node file's
    /// nodes) instead of the ranking; error[InvalidReplicaCount] before any output when fewer
    /// than --k failure domains hold a node of weight above zero.
    #[arg(long, conflicts_with_all = ["profile", "domains", "levels"])]
    strict: bool,
    /// Place as an incumbent library does (conformance/PROFILES.md), e.g. go-redis-ring-v9.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["seed", "view"])]
    profile: Option<String>,
    /// `hrw` (the hrw-v1 ranking) or `domains` (the domains-v1 policy: --k replicas in distinct
    /// domains of --level).
    #[arg(long, value_name = "POLICY", default_value = "hrw", value_parser = POLICY)]
    policy: Policy,
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

pub fn run(a: Args, out: &mut dyn Write) -> Result<(), CliError> {
    if let Some(name) = &a.profile {
        return run_profile(&a, name, out);
    }
    let seed = || parse_seed(a.common.seed.as_deref());
    let placement = match (&a.nodes, &a.nodes_file, &a.view) {
        (Some(ids), _, _) => place_membership(ids, a.weights.as_deref(), a.common.seed.as_deref())?,
        (_, Some(file), _) => Membership::from_file(file)?.build(seed()?)?,
        (_, _, Some(file)) => view::load(file, seed()?)?.placement().clone(),
        (None, None, None) => return Err(CliError::Usage("place needs --nodes".into())),
    };
    let policy = match a.policy {
        Policy::Hrw if a.domains.is_some() || a.levels.is_some() => {
            return Err(CliError::Usage(
                "--domains and --levels are read by --policy domains".into(),
            ))
        }
        Policy::Hrw => None,
        Policy::Domains if a.strict => {
            return Err(CliError::Usage(
                "--strict places by hrw-v1 replicas; --policy domains always spreads".into(),
            ))
        }
        Policy::Domains => {
            let level = domains::parse_level(&a.level, a.levels.as_deref())?;
            Some(domains::place_policy(
                &placement,
                a.domains.as_deref(),
                level,
            )?)
        }
    };
    place::run(
        &placement,
        policy.as_ref(),
        a.strict,
        a.k,
        &a.common,
        &a.keys,
        out,
    )
}

/// `place --profile`: what an incumbent offers, and `NotOffered` for what it does not, as the
/// libraries answer.
fn run_profile(a: &Args, name: &str, out: &mut dyn Write) -> Result<(), CliError> {
    let profile = profile::parse_profile(name, "--profile")?;
    if a.policy == Policy::Domains {
        return Err(CliError::usage(
            "NotOffered",
            format!("--policy domains: {name} has no domains-v1 policy"),
        ));
    }
    let placement = match (&a.nodes, &a.nodes_file) {
        (Some(ids), _) => {
            let mut nodes = place_nodes(ids, a.weights.as_deref())?;
            if let Some(list) = &a.domains {
                nodes = domains::with_domains(nodes, list)?;
            }
            profile::build(profile, nodes, true, &|i| format!("--nodes index {i}"))?
        }
        (_, Some(file)) => profile::from_file(profile, file, a.domains.as_deref())?,
        (None, None) => return Err(CliError::Usage("place --profile needs --nodes".into())),
    };
    profile::place(
        &placement,
        a.k,
        a.common.json,
        &profile::key_args(&a.keys),
        out,
    )
}
