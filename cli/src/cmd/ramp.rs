//! `hrwhash ramp`: split a change from one view to another into steps that each move at most a
//! given share of the keys, and write the step views.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

use hrwhash::RampPlan;
use serde_json::json;

use super::value::MOVE_LIMIT;
use crate::error::{from_core, CliError};
use crate::input::parse_seed;
use crate::output::json_doc;
use crate::plot;
use crate::progress::{self, Unit};
use crate::view::view_file;

#[derive(clap::Args)]
pub struct Args {
    /// The current membership: a view, or a node file (a view at epoch 0).
    #[arg(long, value_name = "FILE")]
    from: OsString,
    /// The target membership: a view or a node file.
    #[arg(long, value_name = "FILE")]
    to: OsString,
    /// Most keys one step may move: a percentage (`5%`) or a fraction (`0.05`).
    #[arg(long, value_name = "LIMIT", allow_hyphen_values = true, value_parser = MOVE_LIMIT)]
    max_move: f64,
    /// Folder for the step views, `step-1.json` .. (created if missing).
    #[arg(long, value_name = "DIR")]
    out: OsString,
    /// Draw movement per step and per-node weights to this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<OsString>,
    /// The secret seed of both views, 32 hex digits (default: the public hrw-v1 seed).
    #[arg(long, value_name = "HEX")]
    seed: Option<String>,
    /// Machine-readable JSON output.
    #[arg(long)]
    json: bool,
    /// No progress bar (it is drawn on stderr only when it is a terminal).
    #[arg(long, short)]
    quiet: bool,
}

fn percent(x: f64) -> String {
    format!("{:.2}%", 100.0 * x)
}

pub fn run(a: &Args, out: &mut dyn Write) -> Result<(), CliError> {
    let seed = parse_seed(a.seed.as_deref())?;
    let limit = a.max_move;
    let (from, to) = (view_file(&a.from, seed, 0)?, view_file(&a.to, seed, 0)?);
    let plan = RampPlan::new(&from, &to, limit).map_err(|e| match e {
        hrwhash::Error::InvalidMoveLimit { .. } => {
            CliError::usage("InvalidMoveLimit", format!("--max-move: {e}"))
        }
        e => from_core(&e, false, &|i| i.to_string(), &|i| format!("nodes[{i}]")),
    })?;
    let dir = PathBuf::from(&a.out);
    std::fs::create_dir_all(&dir)
        .map_err(|e| CliError::Input(format!("{}: {e}", dir.display())))?;
    let steps = plan.steps();
    let bar = progress::bar(
        "writing step views",
        Unit::Items(steps.len() as u64, "steps"),
        a.quiet,
    );
    if !a.json {
        writeln!(
            out,
            "hrwhash ramp: epoch {} -> {} in {} step(s) moving at most {} of the keys each",
            from.epoch(),
            steps.last().map_or(from.epoch(), |s| s.epoch),
            steps.len(),
            percent(limit)
        )?;
        writeln!(
            out,
            "  {:>4} {:>8} {:>8} {:>11}  file",
            "step", "epoch", "moved", "cumulative"
        )?;
    }
    let mut rows = Vec::new();
    let mut cumulative = 0.0;
    for (i, s) in steps.iter().enumerate() {
        let view = plan
            .view(i)
            .map_err(|e| from_core(&e, false, &|i| i.to_string(), &|i| format!("nodes[{i}]")))?;
        let file = dir.join(format!("step-{}.json", i + 1));
        std::fs::write(&file, view.to_json())
            .map_err(|e| CliError::Input(format!("{}: {e}", file.display())))?;
        cumulative += s.moved;
        if a.json {
            rows.push(json!({
                "step": i + 1,
                "epoch": s.epoch.to_string(),
                "moved": s.moved,
                "removes_drained": s.removes_drained,
                "fingerprint": view.fingerprint().to_hex(),
                "file": file.display().to_string(),
            }));
        } else {
            // Streamed: each line appears when its view is on disk.
            writeln!(
                out,
                "  {:>4} {:>8} {:>8} {:>11}  {}",
                i + 1,
                s.epoch,
                percent(s.moved),
                percent(cumulative),
                file.display()
            )?;
            out.flush()?;
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    if let Some(svg) = &a.plot {
        plot::ramp(&plan, &from, Path::new(svg))?;
    }
    if a.json {
        let doc = json!({
            "from_epoch": from.epoch().to_string(),
            "max_move": limit,
            "steps": rows,
            "total_moved": plan.total_moved(),
            "direct_moved": plan.direct_moved(),
            "optimum": plan.optimum(),
        });
        json_doc(&doc, out)?;
        return Ok(());
    }
    writeln!(
        out,
        "total moved {} (direct switch {}, optimum {}): going gradually moves {:.2} points more",
        percent(plan.total_moved()),
        percent(plan.direct_moved()),
        percent(plan.optimum()),
        100.0 * (plan.total_moved() - plan.direct_moved()).max(0.0)
    )?;
    Ok(())
}
