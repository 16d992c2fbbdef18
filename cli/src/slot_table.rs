//! `hrwhash simulate --slots S [--mode levelled|ranked] [--overload-ppm P]`: a slot table
//! (conformance/POLICIES.md, "Slot tables") on the fleet and keys of the simulation, beside plain
//! HRW. Changes are applied to the built table, as a deployment would apply them.

use std::io::Write;

use hrwhash::policy::{SlotMode, SlotTable};
use hrwhash::{Node, Placement};
use serde_json::{json, Value};

use crate::error::CliError;
use crate::input::{generated_key, parse_usize};
use crate::simulate::Options;

/// The `S` and `PPM` of `simulate --policy ranked:S:PPM`.
pub fn options(
    slots: Option<&str>,
    overload: Option<&str>,
) -> Result<Option<(u64, Option<u32>)>, CliError> {
    let Some(slots) = slots else {
        return Ok(None);
    };
    let slots = parse_usize(slots, "--slots")? as u64;
    let overload = overload
        .map(|p| crate::cmd::value::parse_ppm(p, "--overload-ppm"))
        .transpose()?;
    Ok(Some((slots, overload)))
}

pub struct Report {
    slots: u32,
    mode: SlotMode,
    keys: u64,
    nodes: usize,
    max_slots: u32,
    balance: Vec<u64>,
    add_moved: u64,
    add_optimum: f64,
    remove_moved: u64,
    remove_optimum: f64,
}

/// The table of `base` in `mode`.
pub fn build(base: &Placement, slots: u64, mode: SlotMode) -> Result<SlotTable, hrwhash::Error> {
    match mode {
        SlotMode::Levelled => SlotTable::new(base, slots),
        SlotMode::Ranked { overload_ppm } => SlotTable::ranked(base, slots, overload_ppm),
    }
}

fn core_error(e: hrwhash::Error) -> CliError {
    crate::error::from_core(&e, true, &|i| format!("node-{i}"), &|i| format!("node {i}"))
}

/// Builds the table of `base`, applies `--add` and `--remove` to it one node at a time, and
/// counts the keys whose owner changes.
pub fn simulate(
    opts: &Options,
    base: &Placement,
    slots: u64,
    mode: SlotMode,
) -> Result<Report, CliError> {
    let table = build(base, slots, mode).map_err(core_error)?;
    let mut grown = table.clone();
    for i in 0..opts.add {
        grown = grown
            .with_node(Node::new(format!("node-{}", opts.nodes + i)))
            .map_err(core_error)?;
    }
    let mut shrunk = table.clone();
    for i in 0..opts.remove {
        shrunk = shrunk
            .without_node(format!("node-{i}"))
            .map_err(core_error)?;
    }
    let n = opts.nodes;
    let mut r = Report {
        slots: table.slots(),
        mode,
        keys: opts.keys,
        nodes: n,
        max_slots: table.slot_counts().into_iter().max().unwrap_or(0),
        balance: vec![0; n],
        add_moved: 0,
        add_optimum: opts.add as f64 / (n + opts.add) as f64,
        remove_moved: 0,
        remove_optimum: opts.remove as f64 / n as f64,
    };
    let mut key = String::new();
    for i in 0..opts.keys {
        generated_key(&mut key, i);
        let owner = table.owner_index(&key);
        r.balance[owner] += 1;
        r.add_moved += (grown.owner_index(&key) != owner) as u64;
        // Index j of `shrunk` is node-(j + remove).
        r.remove_moved += (opts.remove + shrunk.owner_index(&key) != owner) as u64;
    }
    Ok(r)
}

impl Report {
    fn max_over_mean(&self) -> f64 {
        let max = self.balance.iter().copied().max().unwrap_or(0) as f64;
        max / (self.keys as f64 / self.nodes as f64)
    }

    fn ratio(moved: u64, keys: u64, optimum: f64) -> Option<f64> {
        (optimum > 0.0).then(|| moved as f64 / keys as f64 / optimum)
    }

    pub fn to_json(&self) -> Value {
        json!({
            "policy": self.mode.policy(),
            "mode": crate::cmd::slot_table::mode_name(self.mode),
            "slots": self.slots,
            "overload_ppm": self.mode.overload_ppm(),
            "max_slots_per_node": self.max_slots,
            "max_over_mean_keys": self.max_over_mean(),
            "add": {
                "moved_keys": self.add_moved,
                "moved_over_optimum": Report::ratio(self.add_moved, self.keys, self.add_optimum),
            },
            "remove": {
                "moved_keys": self.remove_moved,
                "moved_over_optimum": Report::ratio(self.remove_moved, self.keys, self.remove_optimum),
            },
        })
    }

    pub fn write_text(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let bound = match self.mode {
            SlotMode::Levelled => "levelled".to_string(),
            SlotMode::Ranked {
                overload_ppm: Some(p),
            } => format!("ranked, overload bound {p} ppm"),
            SlotMode::Ranked { overload_ppm: None } => {
                "ranked, unbounded (plain HRW slot table)".to_string()
            }
        };
        writeln!(
            out,
            "\nSlot table ({}, {} slots, {bound})",
            self.mode.policy(),
            self.slots
        )?;
        writeln!(
            out,
            "  balance: at most {} slots per node; keys max/mean {:.4}",
            self.max_slots,
            self.max_over_mean()
        )?;
        let line = |what: &str, moved: u64, optimum: f64| {
            let ratio = Report::ratio(moved, self.keys, optimum)
                .map_or("-".to_string(), |r| format!("{r:.2}"));
            format!("  {what}: {moved} keys moved ({ratio} x the optimum)")
        };
        writeln!(out, "{}", line("add", self.add_moved, self.add_optimum))?;
        writeln!(
            out,
            "{}",
            line("remove", self.remove_moved, self.remove_optimum)
        )
    }
}
