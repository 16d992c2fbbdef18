//! `hrwhash plan`: per source and destination node, the keys to copy before switching
//! memberships.

use std::io::Write;

use clap::ArgGroup;

use super::Transition;
use crate::error::CliError;
use crate::migrate;

#[derive(clap::Args)]
#[command(group(ArgGroup::new("current").required(true).args(["from"])))]
pub struct Args {
    #[command(flatten)]
    transition: Transition,
    /// Only count keys per source and destination; do not list them.
    #[arg(long)]
    summary: bool,
}

pub fn run(a: Args, out: &mut dyn Write) -> Result<(), CliError> {
    let t = &a.transition;
    let (from, to) = t.placements()?;
    let mut opts = t.options();
    opts.summary = a.summary;
    migrate::plan(&from, &to, t.keys()?, &opts, out)
}
