//! `hrwhash view publish`: publish a view (or a ramp's steps, in order) to an etcd key or a
//! file, with the publisher as the one authority on epochs (LIVE.md, "Publishing").

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use hrwhash::View;
use hrwhash_live::{Published, Publisher};
use serde_json::json;

use super::live::{from_live, Place, DURATION};
use crate::error::CliError;
use crate::input::parse_seed;
use crate::view::{in_file, view_file};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    place: Place,
    /// The view documents to publish, in order; a folder stands for its ramp steps
    /// (`step-1.json`, `step-2.json`, ... as `hrwhash ramp --out` writes them); `-` reads one
    /// document from stdin (`view from-endpointslices ... | view publish ... -`). A node file is
    /// the view of its nodes. Each document's epoch is only a floor: the publisher gives the
    /// stored epoch + 1 when the membership changed, and writes nothing when it did not.
    #[arg(value_name = "VIEW", required = true)]
    views: Vec<OsString>,
    /// The least time between two writes of a ramp.
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = DURATION)]
    interval: Duration,
    /// The secret seed of the views, 32 hex digits (default: the public hrw-v1 seed).
    #[arg(long, value_name = "HEX")]
    seed: Option<String>,
    /// One JSON object per view published.
    #[arg(long)]
    json: bool,
}

/// `step-1.json`, `step-2.json`, ... of a ramp folder, in step order.
fn ramp_steps(dir: &Path) -> Result<Vec<PathBuf>, CliError> {
    let shown = dir.display();
    let mut steps = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| CliError::Input(format!("{shown}: {e}")))?;
    for entry in entries {
        let entry = entry.map_err(|e| CliError::Input(format!("{shown}: {e}")))?;
        let name = entry.file_name();
        let number = name
            .to_str()
            .and_then(|n| n.strip_prefix("step-"))
            .and_then(|n| n.strip_suffix(".json"))
            .and_then(|n| n.parse::<u64>().ok());
        if let Some(n) = number {
            steps.push((n, entry.path()));
        }
    }
    if steps.is_empty() {
        return Err(CliError::Input(format!(
            "{shown}: no ramp steps (step-1.json, step-2.json, ...) in this folder"
        )));
    }
    steps.sort();
    Ok(steps.into_iter().map(|(_, p)| p).collect())
}

pub fn run(a: &Args, out: &mut dyn Write) -> Result<(), CliError> {
    let seed = parse_seed(a.seed.as_deref())?;
    let publisher = match (&a.place.etcd, &a.place.key, &a.place.file) {
        (Some(etcd), Some(key), _) => {
            Publisher::etcd(etcd, key).map_err(|e| from_live(e, "--etcd"))?
        }
        (_, _, Some(file)) => Publisher::file(PathBuf::from(file)),
        _ => {
            return Err(CliError::Usage(
                "view publish writes to --etcd URL --key KEY or --file PATH".into(),
            ))
        }
    };
    let mut paths = Vec::new();
    for v in &a.views {
        let p = Path::new(v);
        if p.is_dir() {
            paths.extend(ramp_steps(p)?);
        } else {
            paths.push(p.to_path_buf());
        }
    }
    let views = paths
        .iter()
        .map(|p| {
            if p.as_os_str() == "-" {
                let bytes = hrwhash::view::read_document(
                    std::io::stdin().take(hrwhash::view::MAX_DOCUMENT_BYTES + 1),
                )
                .map_err(|e| CliError::Input(format!("stdin: {e}")))?
                .map_err(|e| in_file("stdin", &e))?;
                View::from_json_bytes(&bytes, seed).map_err(|e| in_file("stdin", &e))
            } else {
                view_file(&p.clone().into_os_string(), seed, 0)
            }
        })
        .collect::<Result<Vec<View>, CliError>>()?;
    let target = match &publisher {
        Publisher::File(p) => p.display().to_string(),
        _ => format!(
            "{} key {}",
            a.place.etcd.as_deref().unwrap_or(""),
            a.place.key.as_deref().unwrap_or("")
        ),
    };
    let mut write_error = None;
    let result = publisher.publish_steps(&views, a.interval, |i, outcome, began| {
        let (written, epoch) = match outcome {
            Published::Written { epoch } => (true, epoch),
            Published::Unchanged { epoch } => (false, epoch),
        };
        let line = if a.json {
            json!({
                "view": paths[i].display().to_string(),
                "epoch": epoch.to_string(),
                "fingerprint": views[i].fingerprint().to_hex(),
                "written": written,
                "t_ns": began.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64),
            })
            .to_string()
        } else if written {
            format!("{}: published at epoch {epoch}", paths[i].display())
        } else {
            format!(
                "{}: unchanged, epoch {epoch} already holds this membership",
                paths[i].display()
            )
        };
        // Each step shows as soon as it is written: a ramp takes a while.
        if let Err(e) = writeln!(out, "{line}").and_then(|()| out.flush()) {
            write_error.get_or_insert(e);
        }
    });
    result.map_err(|e| from_live(e, &target))?;
    match write_error {
        Some(e) => Err(CliError::Output(e)),
        None => Ok(()),
    }
}
