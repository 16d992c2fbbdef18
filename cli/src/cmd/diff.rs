//! `hrwhash diff`: how many keys change owner (or replica set) between two memberships, and
//! between which nodes; either side may be placed by an incumbent's profile.

use std::ffi::OsString;
use std::io::Write;

use clap::ArgGroup;

use super::Transition;
use crate::error::CliError;
use crate::profile::{self, Side};
use crate::{migrate, view};

#[derive(clap::Args)]
#[command(group(ArgGroup::new("current").required(true).args(["from", "from_profile"])))]
pub struct Args {
    #[command(flatten)]
    transition: Transition,
    /// The current membership is placed by this incumbent (conformance/PROFILES.md); its nodes
    /// are the node file --nodes.
    #[arg(long, value_name = "NAME", requires = "nodes")]
    from_profile: Option<String>,
    /// The node file of --from-profile.
    #[arg(long, value_name = "FILE", requires = "from_profile")]
    nodes: Option<OsString>,
    /// The new membership is placed by this incumbent; --to is then a node file.
    #[arg(long, value_name = "NAME")]
    to_profile: Option<String>,
    /// Draw the keys (or replicas) per node before and after to this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<OsString>,
}

pub fn run(a: Args, out: &mut dyn Write) -> Result<(), CliError> {
    let t = &a.transition;
    if a.from_profile.is_none() && a.to_profile.is_none() {
        let (from, to) = t.placements()?;
        let mut opts = t.options();
        opts.plot = a.plot;
        return migrate::diff(&from, &to, t.keys()?, &opts, out);
    }
    if a.from_profile.is_some() && a.to_profile.is_some() && t.common.seed.is_some() {
        return Err(CliError::Usage(
            "--seed: both sides are placed by profiles, and a profile takes no seed".into(),
        ));
    }
    // A side without a profile is hrw-v1.
    let seed = t.seed()?;
    let side = |name: Option<&str>, flag: &str, path: &OsString| match name {
        Some(name) => Ok(Side::Profile(profile::from_file(
            profile::parse_profile(name, flag)?,
            path,
            None,
        )?)),
        None => Ok::<_, CliError>(Side::Hrw(view::placement_file(path, seed)?)),
    };
    let from_file = a.nodes.as_ref().or(t.from.as_ref()).unwrap_or(&t.to);
    let from = side(a.from_profile.as_deref(), "--from-profile", from_file)?;
    let to = side(a.to_profile.as_deref(), "--to-profile", &t.to)?;
    profile::owners_only(&from, &to, t.k)?;
    let opts = t.options();
    profile::diff(from, to, t.keys()?, &opts, a.plot.as_deref(), out)
}
