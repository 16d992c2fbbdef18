//! `hrwhash simulate --policy ...`: placement policies side by side on one fleet and one key set.
//! Each policy assigns every key once on the fleet, once with one node more and once with the
//! first node removed; a row reports max/mean load, the coefficient of variation, the keys that
//! moved on each change and the assignment time per key.
//!
//! Extension point: a policy is a [`Compared`] value, and [`parse`] maps the text of one
//! `--policy` flag to it. A new policy adds one match arm there and one `Compared` impl.

use std::io::Write;
use std::time::Instant;

use hrwhash::policy::{BalanceFactor, BoundedLoad, SlotMode, SlotTable};
use hrwhash::{Node, Placement, Seed};
use serde_json::{json, Value};

use crate::error::CliError;
use crate::input::generated_key;
use crate::output::json_doc;

/// One policy as `simulate` compares it: assigns a batch of keys on a placement.
pub trait Compared {
    /// The name the row is printed under (the `--policy` text, normalised).
    fn name(&self) -> String;
    /// One build-order node index per key.
    fn assign(&self, placement: &Placement, keys: &[String]) -> Result<Vec<usize>, CliError>;
    /// The keys' owners after the join (`grown`) and after the leave (`shrunk`) of `base`. A
    /// policy whose outcome depends on its history applies the changes to its state on `base`.
    fn assign_changes(
        &self,
        _base: &Placement,
        grown: &Placement,
        shrunk: &Placement,
        keys: &[String],
    ) -> Result<[Vec<usize>; 2], CliError> {
        Ok([self.assign(grown, keys)?, self.assign(shrunk, keys)?])
    }
}

/// Plain hrw-v1: every key on its owner.
struct Plain;

impl Compared for Plain {
    fn name(&self) -> String {
        "plain".into()
    }
    fn assign(&self, placement: &Placement, keys: &[String]) -> Result<Vec<usize>, CliError> {
        Ok(placement.owners(keys))
    }
}

/// bounded-load-v1 in batch mode (POLICIES.md): at most `ceil(c * K * share)` keys per node.
struct Bounded(BalanceFactor, String);

impl Compared for Bounded {
    fn name(&self) -> String {
        format!("bounded:{}", self.1)
    }
    fn assign(&self, placement: &Placement, keys: &[String]) -> Result<Vec<usize>, CliError> {
        BoundedLoad::new(placement.clone(), self.0)
            .assign(keys)
            .map_err(|e| CliError::usage(crate::error::variant_name(&e), e.to_string()))
    }
}

/// The ranked slot table (slot-table-v1, POLICIES.md): each key takes the owner of its slot. The
/// table depends only on the membership, so the tables of the grown and shrunk fleets are what
/// applying the change to the first table gives.
struct Ranked(u64, Option<u32>, String);

impl Compared for Ranked {
    fn name(&self) -> String {
        format!("ranked:{}", self.2)
    }
    fn assign(&self, placement: &Placement, keys: &[String]) -> Result<Vec<usize>, CliError> {
        let table = SlotTable::ranked(placement, self.0, self.1).map_err(|e| core_error(&e))?;
        Ok(keys.iter().map(|k| table.owner_index(k)).collect())
    }
}

fn core_error(e: &hrwhash::Error) -> CliError {
    crate::error::from_core(e, true, &|i| format!("node-{i}"), &|i| format!("node {i}"))
}

/// The levelled slot table (slot-table-v2, POLICIES.md). It depends on the order of changes, so
/// the join and the leave are applied to the first fleet's table, never built afresh.
struct Levelled(u64);

impl Levelled {
    fn owners(table: &SlotTable, keys: &[String]) -> Vec<usize> {
        keys.iter().map(|k| table.owner_index(k)).collect()
    }
}

impl Compared for Levelled {
    fn name(&self) -> String {
        format!("levelled:{}", self.0)
    }
    fn assign(&self, placement: &Placement, keys: &[String]) -> Result<Vec<usize>, CliError> {
        let table = SlotTable::new(placement, self.0).map_err(|e| core_error(&e))?;
        debug_assert_eq!(table.mode(), SlotMode::Levelled);
        Ok(Self::owners(&table, keys))
    }
    fn assign_changes(
        &self,
        base: &Placement,
        grown: &Placement,
        _shrunk: &Placement,
        keys: &[String],
    ) -> Result<[Vec<usize>; 2], CliError> {
        let table = SlotTable::new(base, self.0).map_err(|e| core_error(&e))?;
        let joiner = grown.node_specs().last().cloned();
        let joined = table
            .with_node(joiner.ok_or_else(|| CliError::Usage("no node joins".into()))?)
            .map_err(|e| core_error(&e))?;
        let leaver = base.node_specs()[0].id().to_vec();
        let left = table.without_node(leaver).map_err(|e| core_error(&e))?;
        Ok([Self::owners(&joined, keys), Self::owners(&left, keys)])
    }
}

/// The policy named by one `--policy` value: `plain`, `bounded:C` with C a decimal >= 1, or
/// `ranked:S` / `ranked:S:PPM` (the ranked slot table of S slots, plain or with an overload bound
/// in parts per million), or `levelled:S` (the levelled slot table of S slots).
pub fn parse(text: &str) -> Result<Box<dyn Compared>, CliError> {
    let (name, arg) = match text.split_once(':') {
        Some((name, arg)) => (name, Some(arg)),
        None => (text, None),
    };
    match (name, arg) {
        ("plain", None) => Ok(Box::new(Plain)),
        ("bounded", Some(c)) => {
            let value: f64 = c.parse().map_err(|_| {
                CliError::usage(
                    "InvalidBalanceFactor",
                    format!("--policy {text}: {c:?} is not a number"),
                )
            })?;
            let factor = BalanceFactor::from_f64(value).map_err(|e| {
                CliError::usage("InvalidBalanceFactor", format!("--policy {text}: {e}"))
            })?;
            Ok(Box::new(Bounded(factor, c.to_string())))
        }
        ("ranked", Some(spec)) => {
            let (slots, ppm) = match spec.split_once(':') {
                Some((s, p)) => (s, Some(p)),
                None => (spec, None),
            };
            let (slots, ppm) = crate::slot_table::options(Some(slots), ppm)?
                .ok_or_else(|| CliError::Usage(format!("--policy {text}: no slot count")))?;
            Ok(Box::new(Ranked(slots, ppm, spec.to_string())))
        }
        ("levelled", Some(spec)) => {
            let (slots, _) = crate::slot_table::options(Some(spec), None)?
                .ok_or_else(|| CliError::Usage(format!("--policy {text}: no slot count")))?;
            Ok(Box::new(Levelled(slots)))
        }
        _ => Err(CliError::Usage(format!(
            "--policy {text}: unknown policy; use plain, bounded:C (C >= 1, e.g. bounded:1.25) \
             ranked:S[:PPM] (e.g. ranked:65536:50000) or levelled:S (e.g. levelled:65536)"
        ))),
    }
}

struct Row {
    name: String,
    max_over_mean: f64,
    cv: f64,
    moved_join: u64,
    moved_leave: u64,
    ns_per_key: f64,
}

fn fleet(seed: Seed, range: std::ops::Range<usize>) -> Result<Placement, CliError> {
    Placement::from_nodes(seed, range.map(|i| Node::new(format!("node-{i}"))))
        .map_err(|e| CliError::usage("EmptyMembership", e.to_string()))
}

/// Runs every policy on `n` equal nodes and `keys` generated keys.
pub fn run(
    policies: &[Box<dyn Compared>],
    n: usize,
    keys: u64,
    seed: Seed,
    out: &mut dyn Write,
    as_json: bool,
) -> Result<(), CliError> {
    if n < 2 {
        return Err(CliError::usage(
            "EmptyMembership",
            "--policy needs --nodes 2 or more, so that one node can leave",
        ));
    }
    let keys: Vec<String> = (0..keys)
        .map(|i| {
            let mut k = String::new();
            generated_key(&mut k, i);
            k
        })
        .collect();
    let base = fleet(seed, 0..n)?;
    let grown = fleet(seed, 0..n + 1)?;
    // Build order is index order: index j of `shrunk` is node-(j + 1).
    let shrunk = fleet(seed, 1..n)?;
    let mut rows = Vec::new();
    for policy in policies {
        let start = Instant::now();
        let before = policy.assign(&base, &keys)?;
        let ns_per_key = start.elapsed().as_nanos() as f64 / keys.len() as f64;
        let [joined, left] = policy.assign_changes(&base, &grown, &shrunk, &keys)?;
        let mut load = vec![0u64; n];
        for &o in &before {
            load[o] += 1;
        }
        let mean = keys.len() as f64 / n as f64;
        let max = *load.iter().max().unwrap_or(&0) as f64;
        let var = load.iter().map(|&l| (l as f64 - mean).powi(2)).sum::<f64>() / n as f64;
        rows.push(Row {
            name: policy.name(),
            max_over_mean: max / mean,
            cv: var.sqrt() / mean,
            moved_join: before.iter().zip(&joined).filter(|(a, b)| a != b).count() as u64,
            moved_leave: before
                .iter()
                .zip(&left)
                .filter(|(&a, &b)| a != b + 1)
                .count() as u64,
            ns_per_key,
        });
    }
    let total = keys.len() as f64;
    if as_json {
        let doc: Vec<Value> = rows
            .iter()
            .map(|r| {
                json!({
                    "policy": r.name,
                    "max_over_mean": r.max_over_mean,
                    "cv": r.cv,
                    "moved_on_join": r.moved_join,
                    "moved_on_join_percent": 100.0 * r.moved_join as f64 / total,
                    "moved_on_leave": r.moved_leave,
                    "moved_on_leave_percent": 100.0 * r.moved_leave as f64 / total,
                    "ns_per_key": r.ns_per_key,
                })
            })
            .collect();
        let doc = json!({
            "algorithm": hrwhash::ALGORITHM,
            "nodes": n,
            "keys": keys.len(),
            "optimum_moved_on_join_percent": 100.0 / (n + 1) as f64,
            "optimum_moved_on_leave_percent": 100.0 / n as f64,
            "policies": doc,
        });
        json_doc(&doc, out)?;
        return Ok(());
    }
    writeln!(
        out,
        "hrwhash simulate: {} keys on {n} equal nodes; join adds node-{n}, leave removes node-0",
        keys.len()
    )?;
    writeln!(
        out,
        "  {:<16} {:>9} {:>7} {:>14} {:>14} {:>9}",
        "policy", "max/mean", "CV", "moved on join", "moved on leave", "ns/key"
    )?;
    for r in &rows {
        writeln!(
            out,
            "  {:<16} {:>9.4} {:>7.4} {:>13.2}% {:>13.2}% {:>9.1}",
            r.name,
            r.max_over_mean,
            r.cv,
            100.0 * r.moved_join as f64 / total,
            100.0 * r.moved_leave as f64 / total,
            r.ns_per_key
        )?;
    }
    writeln!(
        out,
        "  (fewest possible moves: {:.2}% on join, {:.2}% on leave)",
        100.0 / (n + 1) as f64,
        100.0 / n as f64
    )?;
    Ok(())
}
