//! `hrwhash simulate`: the numbers to look at before choosing rendezvous hashing: balance, keys
//! moved when a node joins or leaves (against `hash % N` over the same key digests), and how
//! closely weights are honoured.

use std::io::Write;

use hrwhash::v1::key_digest;
use hrwhash::{Node, Placement, Seed, Weight};
use serde_json::{json, Value};

use crate::error::CliError;
use crate::input::{generated_key, seed_hex};
use crate::output::json_doc;
use crate::progress::{self, Unit};
use crate::stats::{chi_square, ChiSquare};

pub struct Options {
    pub nodes: usize,
    pub keys: u64,
    pub weights: Vec<Weight>,
    pub add: usize,
    pub remove: usize,
    pub seed: Seed,
    pub quiet: bool,
    /// Keys per node before, after the addition and after the removal, drawn as SVG.
    pub plot: Option<std::ffi::OsString>,
    /// A slot table to compare beside plain HRW: its number of slots and mode.
    pub slot_table: Option<(u64, hrwhash::policy::SlotMode)>,
}

/// Keys moved by one membership change under one placement scheme.
#[derive(Default)]
struct Moves {
    moved: u64,
    /// After an addition: moved keys whose new owner was already there (HRW: none).
    /// After a removal: moved keys whose owner was not removed (HRW: none).
    avoidable: u64,
}

struct Report {
    keys: u64,
    balance: Vec<u64>,
    /// Keys per node of the grown and of the shrunk fleet (index j of `shrunk`: node-(j + R)).
    grown: Vec<u64>,
    shrunk: Vec<u64>,
    add: [Moves; 2],
    remove: [Moves; 2],
    weighted: Vec<u64>,
}

fn node_ids(range: std::ops::Range<usize>) -> Vec<Node> {
    range.map(|i| Node::new(format!("node-{i}"))).collect()
}

fn id(i: usize) -> String {
    format!("node-{i}")
}

fn build(seed: Seed, nodes: Vec<Node>) -> Result<Placement, CliError> {
    Placement::from_nodes(seed, nodes).map_err(|e| {
        crate::error::from_core(&e, true, &|i| id(i), &|i| format!("--weights index {i}"))
    })
}

pub fn run(opts: &Options, out: &mut dyn Write, as_json: bool) -> Result<(), CliError> {
    let Options {
        nodes: n,
        keys,
        add,
        remove,
        seed,
        ..
    } = *opts;
    if n == 0 {
        return Err(CliError::usage(
            "EmptyMembership",
            "--nodes 0 gives no node to place keys on",
        ));
    }
    if keys == 0 {
        return Err(CliError::Usage("--keys 0 gives no keys to simulate".into()));
    }
    if remove >= n {
        return Err(CliError::usage(
            "EmptyMembership",
            format!("--remove {remove} would leave no node out of --nodes {n}"),
        ));
    }
    // Checked: a huge --add must not wrap around to a small fleet.
    let grown_len = n
        .checked_add(add)
        .filter(|&total| total <= crate::cmd::MAX_NODES);
    let Some(grown_len) = grown_len else {
        return Err(CliError::usage(
            "ResultTooLarge",
            format!(
                "--nodes {n} plus --add {add} is more than the {} nodes a simulation holds",
                crate::cmd::MAX_NODES
            ),
        ));
    };
    if opts.weights.len() > crate::cmd::MAX_NODES {
        return Err(CliError::usage(
            "ResultTooLarge",
            format!(
                "--weights has {} items, more than the {} nodes a simulation holds",
                opts.weights.len(),
                crate::cmd::MAX_NODES
            ),
        ));
    }
    // Build order is index order, so index i of `grown` is node-i of `base`, and index j of
    // `shrunk` is node-(j + remove): owners can be compared as indices.
    let base = build(seed, node_ids(0..n))?;
    let grown = build(seed, node_ids(0..grown_len))?;
    let shrunk = build(seed, node_ids(remove..n))?;
    let fleet = build(
        seed,
        node_ids(0..opts.weights.len())
            .into_iter()
            .zip(&opts.weights)
            .map(|(node, &w)| node.with_weight(w))
            .collect(),
    )?;

    let mut r = Report {
        keys,
        balance: vec![0; n],
        grown: vec![0; grown_len],
        shrunk: vec![0; n - remove],
        add: Default::default(),
        remove: Default::default(),
        weighted: vec![0; fleet.len()],
    };
    let bar = progress::bar("simulate", Unit::Items(keys, "keys"), opts.quiet);
    // Keys in blocks, so that each placement digests a block at once (several keys per vector
    // register where the CPU has them).
    const BLOCK: u64 = 1024;
    let mut block: Vec<String> = Vec::with_capacity(BLOCK.min(keys) as usize);
    let mut owners: [Vec<usize>; 4] = Default::default();
    for start in (0..keys).step_by(BLOCK as usize) {
        let end = keys.min(start + BLOCK);
        bar.set_position(start);
        block.resize_with((end - start) as usize, String::new);
        for (key, i) in block.iter_mut().zip(start..end) {
            generated_key(key, i);
        }
        for (p, out) in [&base, &grown, &shrunk, &fleet]
            .into_iter()
            .zip(&mut owners)
        {
            // Each buffer is reused from block to block.
            out.resize(block.len(), 0);
            p.owners_into(&block, out).map_err(|e| {
                crate::error::from_core(&e, true, &|_| String::new(), &|_| String::new())
            })?;
        }
        let [base_owners, grown_owners, shrunk_owners, fleet_owners] = &owners;
        for (j, key) in block.iter().enumerate() {
            let owner = base_owners[j];
            r.balance[owner] += 1;

            let after = grown_owners[j];
            r.grown[after] += 1;
            count(&mut r.add[0], owner, after, after < n);
            let after = shrunk_owners[j];
            r.shrunk[after] += 1;
            let after = remove + after;
            count(&mut r.remove[0], owner, after, owner >= remove);

            // `hash % N` over the very same key digest, so only the placement rule differs.
            let digest = key_digest(&seed, key.as_bytes());
            let owner = (digest % n as u64) as usize;
            let after = (digest % grown_len as u64) as usize;
            count(&mut r.add[1], owner, after, after < n);
            let after = remove + (digest % (n - remove) as u64) as usize;
            count(&mut r.remove[1], owner, after, owner >= remove);

            r.weighted[fleet_owners[j]] += 1;
        }
    }
    bar.finish_and_clear();
    if let Some(path) = &opts.plot {
        plot(&r, opts, std::path::Path::new(path))?;
    }
    let slots = match opts.slot_table {
        Some((s, mode)) => Some(crate::slot_table::simulate(opts, &base, s, mode)?),
        None => None,
    };
    let intended = intended_shares(&opts.weights);
    if as_json {
        let mut doc = to_json(opts, &r, &intended);
        if let Some(st) = &slots {
            doc["slot_table"] = st.to_json();
        }
        json_doc(&doc, out)?;
    } else {
        write_text(opts, &r, &intended, out)?;
        if let Some(st) = &slots {
            st.write_text(out)?;
        }
    }
    Ok(())
}

/// Every node of the grown fleet, with its keys in each of the three fleets (0 where it is not a
/// member).
fn plot(r: &Report, opts: &Options, path: &std::path::Path) -> Result<(), CliError> {
    let (n, remove) = (opts.nodes, opts.remove);
    let rows: Vec<(Vec<u8>, [u64; 3])> = r
        .grown
        .iter()
        .enumerate()
        .map(|(i, &grown)| {
            let base = r.balance.get(i).copied().unwrap_or(0);
            let shrunk = i
                .checked_sub(remove)
                .and_then(|j| r.shrunk.get(j))
                .copied()
                .unwrap_or(0);
            (id(i).into_bytes(), [base, grown, shrunk])
        })
        .collect();
    let added = format!("+{} node(s)", opts.add);
    let removed = format!("-{} node(s)", remove);
    crate::plot::node_loads(
        path,
        &format!(
            "keys per node, {} keys: {n} nodes, then {added}, then {removed}",
            r.keys
        ),
        "keys",
        &[&format!("{n} nodes"), &added, &removed],
        &rows,
    )
}

fn count(m: &mut Moves, before: usize, after: usize, avoidable: bool) {
    if before != after {
        m.moved += 1;
        if avoidable {
            m.avoidable += 1;
        }
    }
}

fn intended_shares(weights: &[Weight]) -> Vec<f64> {
    let total: f64 = weights.iter().map(|w| w.to_f64()).sum();
    weights.iter().map(|w| w.to_f64() / total).collect()
}

fn percent(part: u64, whole: u64) -> f64 {
    100.0 * part as f64 / whole as f64
}

/// `None` when there were no moves to take a share of.
fn percent_of_moved(m: &Moves) -> Option<f64> {
    (m.moved > 0).then(|| percent(m.avoidable, m.moved))
}

fn relative_error(measured: f64, intended: f64) -> Option<f64> {
    (intended > 0.0).then(|| 100.0 * (measured - intended) / intended)
}

fn min_max_ratio(counts: &[u64]) -> f64 {
    let min = counts.iter().min().copied().unwrap_or(0);
    let max = counts.iter().max().copied().unwrap_or(0);
    if max == 0 {
        0.0
    } else {
        min as f64 / max as f64
    }
}

fn chi_json(c: &ChiSquare) -> Value {
    json!({
        "statistic": c.statistic,
        "degrees_of_freedom": c.degrees_of_freedom,
        "p_value": c.p_value,
    })
}

fn to_json(opts: &Options, r: &Report, intended: &[f64]) -> Value {
    let n = opts.nodes;
    let equal = vec![1.0 / n as f64; n];
    let scheme = |m: &Moves, avoidable_name: &str| {
        let mut v = json!({
            "moved_keys": m.moved,
            "moved_percent": percent(m.moved, r.keys),
        });
        v[avoidable_name] = json!(m.avoidable);
        v[format!("{avoidable_name}_percent_of_moved")] = json!(percent_of_moved(m));
        v
    };
    json!({
        "algorithm": hrwhash::ALGORITHM,
        "seed": seed_hex(opts.seed),
        "keys": r.keys,
        "balance": {
            "nodes": r.balance.iter().enumerate().map(|(i, &c)| json!({
                "id": id(i),
                "keys": c,
                "share_percent": percent(c, r.keys),
                "expected_percent": 100.0 / n as f64,
            })).collect::<Vec<_>>(),
            "min_max_ratio": min_max_ratio(&r.balance),
            "chi_square": chi_json(&chi_square(&r.balance, &equal)),
        },
        "add": {
            "nodes_before": n,
            "nodes_after": n + opts.add,
            "added": (n..n + opts.add).map(id).collect::<Vec<_>>(),
            "optimum_percent": 100.0 * opts.add as f64 / (n + opts.add) as f64,
            "hrw": scheme(&r.add[0], "moved_to_old_node"),
            "mod_n": scheme(&r.add[1], "moved_to_old_node"),
        },
        "remove": {
            "nodes_before": n,
            "nodes_after": n - opts.remove,
            "removed": (0..opts.remove).map(id).collect::<Vec<_>>(),
            "optimum_percent": 100.0 * opts.remove as f64 / n as f64,
            "hrw": scheme(&r.remove[0], "unnecessary_moves"),
            "mod_n": scheme(&r.remove[1], "unnecessary_moves"),
        },
        "weighted": {
            "nodes": r.weighted.iter().enumerate().map(|(i, &c)| {
                let measured = percent(c, r.keys);
                json!({
                    "id": id(i),
                    "weight": opts.weights[i].to_f64(),
                    "keys": c,
                    "share_percent": measured,
                    "intended_percent": 100.0 * intended[i],
                    "relative_error_percent": relative_error(measured, 100.0 * intended[i]),
                })
            }).collect::<Vec<_>>(),
            "chi_square": chi_json(&chi_square(&r.weighted, intended)),
        },
    })
}

/// The heading of a membership change's section, and its table's column heads (`last`: what
/// the last column counts).
fn change_heading(out: &mut dyn Write, heading: &str, last: &str) -> std::io::Result<()> {
    writeln!(out, "\n{heading}")?;
    writeln!(
        out,
        "  {:<10} {:>10} {:>9} {:>9} {:>22}",
        "placement", "moved", "moved", "optimum", last
    )
}

fn write_chi(out: &mut dyn Write, c: &ChiSquare) -> std::io::Result<()> {
    match c.p_value {
        Some(p) => writeln!(
            out,
            "  chi-square {:.2} with {} degrees of freedom, p-value {:.3} (below 0.01 would mean a skew)",
            c.statistic, c.degrees_of_freedom, p
        ),
        None => writeln!(out, "  chi-square: not meaningful with one node"),
    }
}

/// The rows of a change section, hrw's then hash % N's: keys moved, their share of `keys`, the
/// `optimum` share, then `last` of the row.
fn change_rows(
    out: &mut dyn Write,
    moves: &[Moves; 2],
    keys: u64,
    optimum: f64,
    last: impl Fn(&Moves) -> String,
) -> std::io::Result<()> {
    for (name, m) in ["hrw", "hash % N"].into_iter().zip(moves) {
        writeln!(
            out,
            "  {:<10} {:>10} {:>8.2}% {:>8.2}% {}",
            name,
            m.moved,
            percent(m.moved, keys),
            optimum,
            last(m)
        )?;
    }
    Ok(())
}

fn opt_percent(p: Option<f64>) -> String {
    p.map_or_else(|| "-".to_string(), |p| format!("{p:.2}%"))
}

fn write_text(
    opts: &Options,
    r: &Report,
    intended: &[f64],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let n = opts.nodes;
    let seed = if opts.seed == Seed::DEFAULT {
        "default seed".to_string()
    } else {
        format!("seed {}", seed_hex(opts.seed))
    };
    writeln!(
        out,
        "hrwhash simulate ({}, {seed}): {} keys \"key-0\"..\"key-{}\"",
        hrwhash::ALGORITHM,
        r.keys,
        r.keys - 1
    )?;

    writeln!(out, "\n1. Balance over {n} equal nodes")?;
    writeln!(
        out,
        "  {:<10} {:>10} {:>9} {:>9}",
        "node", "keys", "share", "expected"
    )?;
    for (i, &c) in r.balance.iter().enumerate() {
        writeln!(
            out,
            "  {:<10} {:>10} {:>8.2}% {:>8.2}%",
            id(i),
            c,
            percent(c, r.keys),
            100.0 / n as f64
        )?;
    }
    writeln!(out, "  min/max ratio {:.4}", min_max_ratio(&r.balance))?;
    write_chi(out, &chi_square(&r.balance, &vec![1.0 / n as f64; n]))?;

    let after = n + opts.add;
    change_heading(
        out,
        &format!("2. Adding {} node(s): {n} -> {after} nodes", opts.add),
        "moved to an old node",
    )?;
    let optimum = 100.0 * opts.add as f64 / after as f64;
    change_rows(out, &r.add, r.keys, optimum, |m| {
        format!("{:>13} of moved", opt_percent(percent_of_moved(m)))
    })?;

    let after = n - opts.remove;
    change_heading(
        out,
        &format!("3. Removing {} node(s): {n} -> {after} nodes", opts.remove),
        "moved without need",
    )?;
    let optimum = 100.0 * opts.remove as f64 / n as f64;
    change_rows(out, &r.remove, r.keys, optimum, |m| {
        format!("{:>17} keys", m.avoidable)
    })?;

    let ratio: Vec<String> = opts
        .weights
        .iter()
        .map(|w| w.to_f64().to_string())
        .collect();
    writeln!(
        out,
        "\n4. Weighted fleet: {} nodes, weights {}",
        opts.weights.len(),
        ratio.join(":")
    )?;
    writeln!(
        out,
        "  {:<10} {:>10} {:>10} {:>9} {:>9} {:>15}",
        "node", "weight", "keys", "measured", "intended", "relative error"
    )?;
    for (i, &c) in r.weighted.iter().enumerate() {
        let measured = percent(c, r.keys);
        let wanted = 100.0 * intended[i];
        writeln!(
            out,
            "  {:<10} {:>10} {:>10} {:>8.2}% {:>8.2}% {:>15}",
            id(i),
            ratio[i],
            c,
            measured,
            wanted,
            opt_percent(relative_error(measured, wanted))
        )?;
    }
    write_chi(out, &chi_square(&r.weighted, intended))
}
